//! Python call graphs that follow values (issue 20): a catalogue of Python's calling
//! patterns. Each test commits a small program, mines it with the real binary and reads the
//! call graph back with pyarrow. The expected edges of each caller are written out by hand
//! from the code (what Python calls when it runs), in call-site order: (callee as written,
//! callee `path:qualified_name` or `-`, category, found only by value flow). Several cases
//! are there for precision: an edge that a looser analysis would add is absent from the list.

use harness::*;
use serde_json::Value;

fn mine_py(name: &str, files: &[(&str, &str)]) -> (Value, Value) {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join(name));
    for (p, c) in files {
        r.write(p, c);
    }
    r.commit("py");
    let out = mine_into(&r.path, tmp.path(), &[]);
    (read_graph(&out), stats(&out))
}

type Want<'a> = (&'a str, &'a str, &'a str, bool);

#[track_caller]
fn assert_flow(g: &Value, caller: &str, want: &[Want]) {
    let got: Vec<(String, String, String, bool)> = g["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["caller"] == caller)
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["callee"].as_str().unwrap_or("-").to_string(),
                e["category"].as_str().unwrap().to_string(),
                match e["via"].as_str() {
                    Some("value_flow") => true,
                    None => false,
                    Some(other) => panic!("via {other}"),
                },
            )
        })
        .collect();
    let want: Vec<(String, String, String, bool)> = want
        .iter()
        .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), *d))
        .collect();
    assert_eq!(got, want, "edges of {caller}");
}

/// The module or lambda nodes of `kind` as (`field`, start line, end line), sorted.
fn code_nodes(g: &Value, kind: &str, field: &str) -> Vec<(String, i64, i64)> {
    let mut out: Vec<(String, i64, i64)> = g["code_nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["kind"] == kind)
        .map(|n| {
            (
                n[field].as_str().unwrap().to_string(),
                n["start_line"].as_i64().unwrap(),
                n["end_line"].as_i64().unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

const VF: bool = true;
const NAME: bool = false;

#[test]
fn functions_passed_as_arguments_keywords_and_defaults() {
    let (g, stats) = mine_py(
        "args",
        &[(
            "main.py",
            "def target():\n    pass\n\n\
             def other():\n    pass\n\n\
             def never_passed():\n    pass\n\n\
             def apply(f, g=other, *, h=None):\n    f()\n    g()\n    h()\n\n\
             def unused(cb):\n    cb()\n\n\
             def main():\n    apply(target, h=target)\n",
        )],
    );
    assert_flow(
        &g,
        "main.py:apply",
        &[
            ("f", "main.py:target", "same_file", VF),
            // the default, never overridden
            ("g", "main.py:other", "same_file", VF),
            ("h", "main.py:target", "same_file", VF),
        ],
    );
    // Nothing is ever passed to `unused`: its parameter stays unresolved.
    assert_flow(&g, "main.py:unused", &[("cb", "-", "unresolved", NAME)]);
    assert_flow(
        &g,
        "main.py:main",
        &[("apply", "main.py:apply", "same_file", NAME)],
    );
    // stats.json counts the edges the value flow found, and the analysis' size.
    let py = &stats["stages"]["resolve"]["languages"]["python"];
    assert_eq!(py["value_flow"], 3, "{py}");
    assert!(py["flow_nodes"].as_u64().unwrap() > 0, "{py}");
    assert!(py["flow_steps"].as_u64().unwrap() > 0, "{py}");
    assert!(py.get("flow_step_limit").is_none(), "{py}");
}

#[test]
fn returned_functions_factories_and_closures() {
    let (g, _) = mine_py(
        "returns",
        &[(
            "main.py",
            "def helper():\n    pass\n\n\
             def make():\n    def inner():\n        helper()\n    return inner\n\n\
             def main():\n    f = make()\n    f()\n    make()()\n",
        )],
    );
    assert_flow(
        &g,
        "main.py:main",
        &[
            ("make", "main.py:make", "same_file", NAME),
            ("f", "main.py:make.inner", "same_file", VF),
            ("make()", "main.py:make.inner", "same_file", VF),
            ("make", "main.py:make", "same_file", NAME),
        ],
    );
    // The nested function is a node of its own, its call found through the closure scope.
    assert_flow(
        &g,
        "main.py:make.inner",
        &[("helper", "main.py:helper", "same_file", NAME)],
    );
}

#[test]
fn attributes_and_instances_created_elsewhere() {
    let (g, _) = mine_py(
        "attrs",
        &[(
            "ui.py",
            "class Button:\n\
             \x20   def __init__(self, on_click):\n        self.on_click = on_click\n\n\
             \x20   def click(self):\n        self.on_click()\n\n\
             def save():\n    pass\n\n\
             def build():\n    return Button(save)\n\n\
             def run():\n    build().click()\n",
        )],
    );
    assert_flow(
        &g,
        "ui.py:Button.click",
        &[("self.on_click", "ui.py:save", "same_file", VF)],
    );
    assert_flow(
        &g,
        "ui.py:build",
        &[("Button", "ui.py:Button.__init__", "same_file", NAME)],
    );
    assert_flow(
        &g,
        "ui.py:run",
        &[
            // the receiver is a call: only its value says it is a Button
            ("build().click", "ui.py:Button.click", "same_file", VF),
            ("build", "ui.py:build", "same_file", NAME),
        ],
    );
}

#[test]
fn dictionaries_lists_tuples_and_unpacking() {
    let (g, _) = mine_py(
        "containers",
        &[(
            "routes.py",
            "def on_get():\n    pass\n\n\
             def on_post():\n    pass\n\n\
             HANDLERS = {\"get\": on_get, \"post\": on_post}\n\
             ROUTES = [on_get]\n\n\
             def dispatch(method):\n\
             \x20   HANDLERS[\"get\"]()\n\
             \x20   HANDLERS[method]()\n\
             \x20   ROUTES[0]()\n\
             \x20   a, b = on_post, on_get\n\
             \x20   a()\n\
             \x20   for h in ROUTES:\n        h()\n",
        )],
    );
    assert_flow(
        &g,
        "routes.py:dispatch",
        &[
            // a literal key reads its own entry only
            ("HANDLERS[\"get\"]", "routes.py:on_get", "same_file", VF),
            // any key: every entry
            ("HANDLERS[method]", "routes.py:on_get", "same_file", VF),
            ("HANDLERS[method]", "routes.py:on_post", "same_file", VF),
            ("ROUTES[0]", "routes.py:on_get", "same_file", VF),
            // unpacking is positional: `a` is on_post, not on_get
            ("a", "routes.py:on_post", "same_file", VF),
            ("h", "routes.py:on_get", "same_file", VF),
        ],
    );
}

#[test]
fn decorators_that_register_and_decorators_that_wrap() {
    let (g, _) = mine_py(
        "decorators",
        &[(
            "app.py",
            "import functools\n\n\
             HOOKS = []\n\n\
             def register(f):\n    HOOKS.append(f)\n    return f\n\n\
             @register\ndef hook_a():\n    pass\n\n\
             def fire():\n    for h in HOOKS:\n        h()\n    hook_a()\n\n\
             def logged(fn):\n\
             \x20   @functools.wraps(fn)\n\
             \x20   def wrapper(*args, **kwargs):\n        return fn(*args, **kwargs)\n\
             \x20   return wrapper\n\n\
             @logged\ndef work(x):\n    return x\n\n\
             def main():\n    work(1)\n\n\
             def setup():\n    @register\n    def local_hook():\n        pass\n",
        )],
    );
    assert_flow(
        &g,
        "app.py:fire",
        &[
            ("h", "app.py:hook_a", "same_file", VF),
            ("h", "app.py:setup.local_hook", "same_file", VF),
            // `register` returns the function itself: the name still calls it
            ("hook_a", "app.py:hook_a", "same_file", NAME),
        ],
    );
    // `logged` returns `wrapper`: calling `work` runs the wrapper, which calls `work`.
    assert_flow(
        &g,
        "app.py:main",
        &[("work", "app.py:logged.wrapper", "same_file", VF)],
    );
    assert_flow(
        &g,
        "app.py:logged.wrapper",
        &[("fn", "app.py:work", "same_file", VF)],
    );
    assert_flow(
        &g,
        "app.py:logged",
        &[("functools.wraps", "-", "stdlib", NAME)],
    );
    // `@register` inside a function calls it there: an edge no call site spells.
    assert_flow(
        &g,
        "app.py:setup",
        &[("@register", "app.py:register", "same_file", VF)],
    );
}

#[test]
fn lambdas_are_nodes_with_their_own_calls() {
    let (g, _) = mine_py(
        "lambdas",
        &[(
            "main.py",
            "def helper():\n    pass\n\n\
             def use():\n\
             \x20   f = lambda: helper()\n\
             \x20   f()\n\
             \x20   g = lambda x: x\n\
             \x20   g(helper)()\n\
             \x20   return [h() for h in (lambda: helper, lambda: use)]\n",
        )],
    );
    assert_flow(
        &g,
        "main.py:use",
        &[
            // a lambda is a node: `f` holds it, calling `f` calls the lambda
            ("f", "main.py:use.<lambda>", "same_file", VF),
            // what the lambda returns is followed
            ("g(helper)", "main.py:helper", "same_file", VF),
            ("g", "main.py:use.<lambda>", "same_file", VF),
            // two lambdas on one line: the second is `<lambda>#2`
            ("h", "main.py:use.<lambda>", "same_file", VF),
            ("h", "main.py:use.<lambda>#2", "same_file", VF),
        ],
    );
    // The lambda's own call is the lambda's, not `use`'s.
    assert_flow(
        &g,
        "main.py:use.<lambda>",
        &[("helper", "main.py:helper", "same_file", NAME)],
    );
    // Nodes of kind `lambda`, one per lambda, with their lines; never CSN rows.
    assert_eq!(
        code_nodes(&g, "lambda", "qualified_name"),
        [
            ("use.<lambda>".to_string(), 5, 5),
            ("use.<lambda>".to_string(), 7, 7),
            ("use.<lambda>".to_string(), 9, 9),
            ("use.<lambda>#2".to_string(), 9, 9),
        ]
    );
    assert!(g["code_nodes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|n| n["name"] == "<lambda>" || n["name"] == "<module>"));
}

#[test]
fn module_level_code_is_a_node_with_its_calls() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("modules"));
    r.write(
        "util.py",
        "def setup():\n    pass\n\n\
         def make():\n    return setup\n\n\
         class Greeter:\n    def hello(self):\n        pass\n",
    );
    r.write(
        "main.py",
        "import util\nfrom util import Greeter\n\n\n\
         def run():\n    pass\n\n\n\
         CALLBACKS = {\"go\": run}\n\
         util.setup()\n\
         g = Greeter()\n\
         g.hello()\n\
         CALLBACKS[\"go\"]()\n\n\n\
         class App:\n    handler = util.make()\n\n    def start(self):\n        self.handler()\n\n\n\
         if __name__ == \"__main__\":\n\
         \x20   app = App()\n\
         \x20   app.start()\n\
         \x20   fire = lambda: run()\n\
         \x20   fire()\n",
    );
    r.commit("modules");
    let out = mine_into(&r.path, tmp.path(), &[]);
    let g = read_graph(&out);
    assert_flow(
        &g,
        "main.py:<module>",
        &[
            ("util.setup", "util.py:setup", "same_package", NAME),
            // a class without `__init__`: code of the repository, no function node
            ("Greeter", "-", "same_package", NAME),
            ("g.hello", "util.py:Greeter.hello", "same_package", VF),
            ("CALLBACKS[\"go\"]", "main.py:run", "same_file", VF),
            // a class body runs when the module does
            ("util.make", "util.py:make", "same_package", NAME),
            ("App", "-", "same_file", NAME),
            ("app.start", "main.py:App.start", "same_file", VF),
            ("fire", "main.py:<lambda>", "same_file", VF),
        ],
    );
    assert_flow(
        &g,
        "main.py:<lambda>",
        &[("run", "main.py:run", "same_file", NAME)],
    );
    // What the class body stored is what the method calls.
    assert_flow(
        &g,
        "main.py:App.start",
        &[("self.handler", "util.py:setup", "same_package", VF)],
    );
    // One module node per Python file, spanning it; no module calls, no edges.
    assert_eq!(
        code_nodes(&g, "module", "path"),
        [
            ("main.py".to_string(), 1, 27),
            ("util.py".to_string(), 1, 9)
        ]
    );
    assert_flow(&g, "util.py:<module>", &[]);
    // stats.json counts them, apart from the functions.
    let s = stats(&out);
    let py = &s["stages"]["resolve"]["languages"]["python"];
    assert_eq!(
        (&py["module_nodes"], &py["lambda_nodes"]),
        (&2.into(), &1.into()),
        "{py}"
    );
    assert_eq!(s["stages"]["extract"]["functions"], 5);
    // The functions' tables are the functions': no module or lambda rows.
    let csn = shard_rows(&out.join("csn"));
    assert!(csn
        .iter()
        .all(|r| !r["func_name"].as_str().unwrap().contains('<')));
    let yabloco = shard_rows(&out.join("yabloco"));
    assert_eq!(
        yabloco.len(),
        5,
        "setup, make, Greeter.hello, run, App.start"
    );
}

#[test]
fn builtins_that_call_the_functions_they_are_given() {
    let (g, _) = mine_py(
        "builtins",
        &[
            (
                "main.py",
                "class Item:\n    def size(self):\n        return 1\n\n\
             def double(x):\n    return x * 2\n\n\
             def keep(x):\n    return True\n\n\
             def make(x):\n    def inner():\n        pass\n    return inner\n\n\
             def main():\n\
             \x20   xs = [Item(), Item()]\n\
             \x20   list(map(double, [1, 2]))\n\
             \x20   list(filter(keep, [1, 2]))\n\
             \x20   sorted(xs, key=lambda i: i.size())\n\
             \x20   xs.sort(key=Item.size)\n\
             \x20   max(1, 2, key=double)\n\
             \x20   for r in map(make, [1]):\n\
             \x20       r()\n",
            ),
            (
                // the repository's own `map` is no builtin: it never calls what it is given
                "own.py",
                "def map(f, xs):\n    return []\n\n\
             def cb():\n    pass\n\n\
             def use():\n    map(cb, [1])\n",
            ),
        ],
    );
    assert_flow(
        &g,
        "own.py:use",
        &[("map", "own.py:map", "same_file", NAME)],
    );
    assert_flow(
        &g,
        "main.py:main",
        &[
            // the call sites, as the names resolve them
            ("Item", "-", "same_file", NAME),
            ("Item", "-", "same_file", NAME),
            ("list", "-", "stdlib", NAME),
            ("map", "-", "stdlib", NAME),
            ("list", "-", "stdlib", NAME),
            ("filter", "-", "stdlib", NAME),
            ("sorted", "-", "stdlib", NAME),
            ("xs.sort", "-", "unresolved", NAME),
            ("max", "-", "stdlib", NAME),
            ("map", "-", "stdlib", NAME),
            // what `map` returns are `make`'s results
            ("r", "main.py:make.inner", "same_file", VF),
            // the calls the builtins make, named as the function is written where it is
            // passed (else as the builtin)
            ("double", "main.py:double", "same_file", VF),
            ("keep", "main.py:keep", "same_file", VF),
            ("sorted", "main.py:main.<lambda>", "same_file", VF),
            ("Item.size", "main.py:Item.size", "same_file", VF),
            ("double", "main.py:double", "same_file", VF),
            ("make", "main.py:make", "same_file", VF),
        ],
    );
    // The key function is called with the entries: `i` is an Item.
    assert_flow(
        &g,
        "main.py:main.<lambda>",
        &[("i.size", "main.py:Item.size", "same_file", VF)],
    );
}

#[test]
fn raising_a_class_runs_its_constructor() {
    let (g, _) = mine_py(
        "raise",
        &[(
            "main.py",
            "class AppError(Exception):\n    def __init__(self, msg=\"failed\"):\n        self.msg = msg\n\n\
             class Plain(Exception):\n    pass\n\n\
             def fail():\n    raise AppError\n\n\
             def fail_call():\n    raise AppError(\"x\")\n\n\
             def reraise(err):\n    raise err\n\n\
             def main():\n    reraise(AppError())\n    raise Plain from None\n",
        )],
    );
    // `raise AppError` makes an AppError: an edge no call site spells.
    assert_flow(
        &g,
        "main.py:fail",
        &[("AppError", "main.py:AppError.__init__", "same_file", VF)],
    );
    // A raised call is a call site already: no second edge.
    assert_flow(
        &g,
        "main.py:fail_call",
        &[("AppError", "main.py:AppError.__init__", "same_file", NAME)],
    );
    // Raising an instance calls nothing (not its `__call__`, not its class's `__init__`).
    assert_flow(&g, "main.py:reraise", &[]);
    // A class without `__init__` of the repository: nothing to call.
    assert_flow(
        &g,
        "main.py:main",
        &[
            ("reraise", "main.py:reraise", "same_file", NAME),
            ("AppError", "main.py:AppError.__init__", "same_file", NAME),
        ],
    );
}

#[test]
fn comprehension_conditions_are_calls_too() {
    let (g, _) = mine_py(
        "comprehensions",
        &[(
            "main.py",
            "def small(x):\n    return x < 3\n\n\
             def pick(xs, pred=small):\n    return [x for x in xs if pred(x)]\n\n\
             evens = [n for n in range(4) if small(n)]\n",
        )],
    );
    assert_flow(
        &g,
        "main.py:pick",
        &[("pred", "main.py:small", "same_file", VF)],
    );
    assert_flow(
        &g,
        "main.py:<module>",
        &[
            ("range", "-", "stdlib", NAME),
            ("small", "main.py:small", "same_file", NAME),
        ],
    );
}

#[test]
fn c3_method_resolution_order_and_super() {
    let (g, _) = mine_py(
        "mro",
        &[(
            "shapes.py",
            "class A:\n\
             \x20   def hello(self):\n        pass\n\n\
             \x20   def greet(self):\n        self.hello()\n\n\
             class B(A):\n\
             \x20   def hello(self):\n        super().hello()\n\n\
             class C(A):\n\
             \x20   def hello(self):\n        pass\n\n\
             class D(B, C):\n    pass\n\n\
             def main():\n    D().greet()\n",
        )],
    );
    // The MRO of D is D, B, C, A.
    assert_flow(
        &g,
        "shapes.py:main",
        &[
            ("D().greet", "shapes.py:A.greet", "same_file", VF),
            ("D", "-", "same_file", NAME),
        ],
    );
    // self is a D: B.hello comes first in its MRO (never C.hello).
    assert_flow(
        &g,
        "shapes.py:A.greet",
        &[
            ("self.hello", "shapes.py:A.hello", "same_file", NAME),
            ("self.hello", "shapes.py:B.hello", "same_file", VF),
        ],
    );
    // super() in B with a D receiver is C (the names alone say A).
    assert_flow(
        &g,
        "shapes.py:B.hello",
        &[
            ("super().hello", "shapes.py:A.hello", "same_file", NAME),
            ("super().hello", "shapes.py:C.hello", "same_file", VF),
            ("super", "-", "stdlib", NAME),
        ],
    );
}

#[test]
fn call_iter_next_and_enter_protocols() {
    let (g, _) = mine_py(
        "protocols",
        &[(
            "jobs.py",
            "def job():\n    pass\n\n\
             class Runner:\n    def __call__(self):\n        job()\n\n\
             class Pool:\n    def __iter__(self):\n        return iter([job])\n\n\
             class Countdown:\n\
             \x20   def __iter__(self):\n        return self\n\n\
             \x20   def __next__(self):\n        return job\n\n\
             class Ctx:\n\
             \x20   def __enter__(self):\n        return job\n\n\
             \x20   def __exit__(self, *a):\n        return False\n\n\
             def main():\n\
             \x20   r = Runner()\n    r()\n\
             \x20   for j in Pool():\n        j()\n\
             \x20   for k in Countdown():\n        k()\n\
             \x20   with Ctx() as c:\n        c()\n",
        )],
    );
    assert_flow(
        &g,
        "jobs.py:main",
        &[
            ("Runner", "-", "same_file", NAME),
            ("r", "jobs.py:Runner.__call__", "same_file", VF),
            ("Pool", "-", "same_file", NAME),
            ("j", "jobs.py:job", "same_file", VF),
            ("Countdown", "-", "same_file", NAME),
            ("k", "jobs.py:job", "same_file", VF),
            ("Ctx", "-", "same_file", NAME),
            ("c", "jobs.py:job", "same_file", VF),
            // the calls the statements make, after the call sites, by line
            ("__iter__", "jobs.py:Pool.__iter__", "same_file", VF),
            ("__iter__", "jobs.py:Countdown.__iter__", "same_file", VF),
            ("__next__", "jobs.py:Countdown.__next__", "same_file", VF),
            ("__enter__", "jobs.py:Ctx.__enter__", "same_file", VF),
            ("__exit__", "jobs.py:Ctx.__exit__", "same_file", VF),
        ],
    );
}

#[test]
fn imports_star_all_relative_and_callbacks_across_modules() {
    let (g, _) = mine_py(
        "imports",
        &[
            ("pkg/__init__.py", "from .core import *\n"),
            (
                "pkg/core.py",
                "__all__ = [\"public\", \"run\", \"REGISTRY\"]\n\n\
                 def public():\n    pass\n\n\
                 def run(cb):\n    cb()\n\n\
                 REGISTRY = {\"p\": public}\n",
            ),
            (
                "app/main.py",
                "from pkg import *\nimport pkg.core as pc\n\n\
                 def local():\n    pass\n\n\
                 def main():\n    public()\n    pc.REGISTRY[\"p\"]()\n    run(local)\n",
            ),
        ],
    );
    assert_flow(
        &g,
        "app/main.py:main",
        &[
            ("public", "pkg/core.py:public", "project", NAME),
            ("pc.REGISTRY[\"p\"]", "pkg/core.py:public", "project", VF),
            ("run", "pkg/core.py:run", "project", NAME),
        ],
    );
    assert_flow(
        &g,
        "pkg/core.py:run",
        &[("cb", "app/main.py:local", "project", VF)],
    );
}

#[test]
fn values_re_exported_by_a_package_that_only_imports() {
    let (g, _) = mine_py(
        "reexport",
        &[
            // the package's `__init__.py` has imports and nothing else
            ("pkg/__init__.py", "from .impl import handler, worker\n"),
            (
                "pkg/impl.py",
                "def run():\n    pass\n\n\
                 handler = run\n\n\
                 class Worker:\n    def go(self):\n        pass\n\n\
                 worker = Worker()\n",
            ),
            (
                "main.py",
                "from pkg import handler, worker\n\n\
                 def main():\n    handler()\n    worker.go()\n",
            ),
        ],
    );
    assert_flow(
        &g,
        "main.py:main",
        &[
            ("handler", "pkg/impl.py:run", "project", VF),
            ("worker.go", "pkg/impl.py:Worker.go", "project", VF),
        ],
    );
}

#[test]
fn dynamic_names_stay_unresolved() {
    let (g, _) = mine_py(
        "dynamic",
        &[(
            "main.py",
            "class K:\n    def a(self):\n        pass\n\n\
             def lit():\n    k = K()\n    getattr(k, \"a\")()\n\n\
             def dyn(name):\n    k = K()\n    getattr(k, name)()\n    eval(\"a\")()\n",
        )],
    );
    // getattr with a literal name is an attribute read.
    assert_flow(
        &g,
        "main.py:lit",
        &[
            ("K", "-", "same_file", NAME),
            ("getattr(k,\"a\")", "main.py:K.a", "same_file", VF),
            ("getattr", "-", "stdlib", NAME),
        ],
    );
    assert_flow(
        &g,
        "main.py:dyn",
        &[
            ("K", "-", "same_file", NAME),
            ("getattr(k,name)", "-", "unresolved", NAME),
            ("getattr", "-", "stdlib", NAME),
            ("eval(\"a\")", "-", "unresolved", NAME),
            ("eval", "-", "stdlib", NAME),
        ],
    );
}

#[test]
fn decorators_through_library_helpers_and_unknown_results() {
    let (g, _) = mine_py(
        "wrappers",
        &[(
            "app.py",
            "import typing as t\nfrom functools import update_wrapper\n\n\
             def setupmethod(f):\n\
             \x20   def wrapper_func(self, *args):\n        return f(self, *args)\n\
             \x20   return t.cast(F, update_wrapper(wrapper_func, f))\n\n\
             def opaque(f):\n    return some_lib(f)\n\n\
             class App:\n\
             \x20   @setupmethod\n    def route(self, rule):\n        pass\n\n\
             \x20   @opaque\n    def other(self):\n        pass\n\n\
             def main():\n    app = App()\n    app.route(\"/\")\n    app.other()\n",
        )],
    );
    // Both decorators return what a library call made of the method (flask's
    // `setupmethod` returns `t.cast(F, update_wrapper(wrapper_func, f))`): the value is
    // unknown, so the names keep their methods (following `wrapper_func` instead would
    // merge the results of every method it wraps into each call).
    assert_flow(
        &g,
        "app.py:main",
        &[
            ("App", "-", "same_file", NAME),
            ("app.route", "app.py:App.route", "same_file", NAME),
            ("app.other", "app.py:App.other", "same_file", NAME),
        ],
    );
    assert_flow(
        &g,
        "app.py:setupmethod.wrapper_func",
        &[("f", "app.py:App.route", "same_file", VF)],
    );
}
