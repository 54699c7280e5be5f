"""The public type names of the .NET base class library's System namespaces, read from the
metadata (TypeDef table) of Mono's reference assemblies with dnfile: one name per line,
generic arity (`List`1`) dropped. Called by generate.sh."""
import sys, dnfile
names = set()
for path in sys.argv[1:]:
    pe = dnfile.dnPE(path)
    td = pe.net.mdtables.TypeDef
    if td is None:
        continue
    for row in td.rows:
        ns = str(row.TypeNamespace or "")
        name = str(row.TypeName or "")
        flags = row.Flags
        public = flags.tdPublic
        if not public or not (ns == "System" or ns.startswith("System.")):
            continue
        name = name.split("`")[0]
        names.add(name)
for n in sorted(names):
    print(n)
