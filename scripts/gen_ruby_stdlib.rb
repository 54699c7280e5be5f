# Writes languages/src/ruby/data/*.txt: Ruby's core and standard library as the Ruby
# resolver needs them, asked of the interpreter itself.
#
#   ruby_stdlib_libs.txt       every name `require` finds in the interpreter's own library
#                              folders (RbConfig rubylibdir and archdir: the standard library
#                              and default gems; not vendor_ruby, site_ruby or bundled gems)
#   ruby_stdlib_constants.txt  top-level constants of the core (at startup) and those each
#                              standard library defines when required (JSON, Set, FileUtils)
#   ruby_kernel_methods.txt    methods callable without a receiver anywhere: Kernel, Object,
#                              BasicObject, and Module/Class (class bodies, singleton methods)
#   ruby_core_methods.txt      public instance methods of every core class and module
#
# Usage: ruby scripts/gen_ruby_stdlib.rb   (Debian 12's ruby 3.1 package: Ruby 3.1.2)
require "rbconfig"
require "open3"

abort "expected Ruby 3.1, got #{RUBY_VERSION}" unless RUBY_VERSION.start_with?("3.1.")
out = File.expand_path("../languages/src/ruby/data", __dir__)
version = "Ruby #{RUBY_VERSION}p#{RUBY_PATCHLEVEL} (#{RUBY_PLATFORM}, Debian 12 ruby3.1 package)"

def write(path, header, names)
  File.open(path, "w") do |f|
    header.each_line { |l| f.puts("# #{l.chomp}".rstrip) }
    names.uniq.sort.each { |n| f.puts(n) }
  end
end

dirs = RbConfig::CONFIG.values_at("rubylibdir", "archdir")
libs = dirs.flat_map do |d|
  Dir.glob("**/*.{rb,so}", base: d).map { |p| p.sub(/\.(rb|so)\z/, "") }
end
write("#{out}/ruby_stdlib_libs.txt", <<~H, libs)
  Libraries of Ruby's standard library: every path `require` finds under RbConfig's
  rubylibdir and archdir (standard library and default gems), without extension.
  #{version}. Generated with: ruby scripts/gen_ruby_stdlib.rb
H

base = Object.constants.map(&:to_s)
consts = base.dup
# Top-level libraries, and `dir/lib` where `dir` is none (net/http, digest/sha2).
tops = libs.select do |l|
  parts = l.split("/")
  parts.size == 1 || (parts.size == 2 && !libs.include?(parts[0]))
end.uniq
tops.each do |lib|
  code = "b = Object.constants; begin; require #{lib.dump}; rescue Exception; end; " \
         "puts(Object.constants - b)"
  stdout, _status = Open3.capture2("ruby", "-W0", "-e", code, err: File::NULL)
  consts.concat(stdout.split)
end
write("#{out}/ruby_stdlib_constants.txt", <<~H, consts)
  Top-level constants of Ruby's core (Object.constants at startup) and of the standard
  library (the constants each top-level library of ruby_stdlib_libs.txt adds when required).
  #{version}. Generated with: ruby scripts/gen_ruby_stdlib.rb
H

kernel = [Kernel, Object, BasicObject, Module, Class].flat_map do |m|
  m.instance_methods + m.private_instance_methods
end
write("#{out}/ruby_kernel_methods.txt", <<~H, kernel.map(&:to_s))
  Methods callable without a receiver anywhere in Ruby code: public and private instance
  methods of Kernel, Object, BasicObject, Module and Class.
  #{version}. Generated with: ruby scripts/gen_ruby_stdlib.rb
H

core = ObjectSpace.each_object(Module).select { |m| m.name && !m.name.start_with?("Gem", "Bundler") }
methods = core.flat_map { |m| m.public_instance_methods(false) + m.singleton_methods(false) }
write("#{out}/ruby_core_methods.txt", <<~H, methods.map(&:to_s))
  Public instance and singleton methods of every named core class and module loaded at
  startup (RubyGems' own classes left out).
  #{version}. Generated with: ruby scripts/gen_ruby_stdlib.rb
H
