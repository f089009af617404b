#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""install.spack_package: Sieve's Spack package agrees with its CMake build.

    python3 check_spack_package.py <sieve checkout>

No Spack needed: the package is byte-compiled (valid Python), then executed with
stand-ins for the Spack modules it imports, which record its directives. Checked:
  - the repository: spack/spack_repo/<namespace>/repo.yaml names that namespace;
  - versions: `main` from git (the way to build until a release exists), and no
    version Spack cannot verify (a release needs commit= or sha256=: a bare tag
    warns on every concretization); no release past project(VERSION);
  - variants: openmp, serial (Kokkos' backends), cuda + cuda_arch (CudaPackage), mpi;
  - dependencies: the c and cxx compilers (nvcc runs the host C compiler, which in
    Spack's build environment needs depends_on("c")), kokkos@<the minimum
    CMakeLists.txt takes>:, kokkos+X when +X for each backend, cuda_arch forwarded
    to Kokkos, conditions on Kokkos itself with requires() (+cuda_lambda; +wrapper
    for +cuda with GCC, without which Kokkos' package refuses to build), and no
    dependency of sieve on itself;
  - cmake_args() for several specs: every -DSIEVE_* it passes is an option of
    CMakeLists.txt (or a cache variable of tests/CMakeLists.txt) with an allowed
    value, every SIEVE_ENABLE_* option is decided, the values follow the variants
    and run_tests, Kokkos_ROOT is Kokkos' prefix, Kokkos' compiler is used for
    +cuda, and a ~cuda build's tests look for no nvcc outside the spec;
  - the smoke test (build and run tests/downstream) hooks exist.
Prints one line per check; exits 1 on any failure.
"""
import os
import py_compile
import re
import sys
import tempfile
import types

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
FAILURES = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILURES.append(what)


# --- stand-ins for Spack ------------------------------------------------------------
RECORD = []  # (directive, args, kwargs) in the order the class body calls them


def _directive(name):
    def record(*args, **kwargs):
        RECORD.append((name, args, kwargs))
    return record


def _decorator_factory(name):
    def factory(*args, **kwargs):
        def decorate(fn):
            tags = getattr(fn, "_spack_hooks", [])
            fn._spack_hooks = tags + [(name, args, kwargs)]
            return fn
        return decorate
    return factory


class _Builder:
    """What CMakePackage gives a package: define() and define_from_variant()."""

    def define(self, name, value):
        if isinstance(value, bool):
            value = "ON" if value else "OFF"
        elif isinstance(value, (list, tuple)):
            value = ";".join(str(v) for v in value)
        return f"-D{name}={value}"

    def define_from_variant(self, name, variant=None):
        variant = variant or name.lower()
        return self.define(name, self.spec.variants[variant].value)


class CMakePackage(_Builder):
    pass


CUDA_ARCH_VALUES = ("70", "80", "90", "100")


class CudaPackage:
    cuda_arch_values = CUDA_ARCH_VALUES


def _install_stubs():
    package = types.ModuleType("spack.package")
    for name in ("version", "variant", "depends_on", "requires", "conflicts", "license",
                 "maintainers", "patch", "provides", "resource", "extends", "tags"):
        setattr(package, name, _directive(name))
    package.run_after = _decorator_factory("run_after")
    package.run_before = _decorator_factory("run_before")
    package.on_package_attributes = _decorator_factory("on_package_attributes")
    package.join_path = os.path.join
    package.which = lambda *a, **k: None
    package.Executable = lambda *a, **k: None
    package.cache_extra_test_sources = lambda *a, **k: None
    package.InstallError = type("InstallError", (Exception,), {})
    package.__all__ = [n for n in vars(package) if not n.startswith("_")]
    spack = types.ModuleType("spack")
    spack.package = package
    mods = {"spack": spack, "spack.package": package}
    for name in ("spack_repo", "spack_repo.builtin", "spack_repo.builtin.build_systems"):
        mods[name] = types.ModuleType(name)
    cmake = types.ModuleType("spack_repo.builtin.build_systems.cmake")
    cmake.CMakePackage = CMakePackage
    cuda = types.ModuleType("spack_repo.builtin.build_systems.cuda")
    cuda.CudaPackage = CudaPackage
    mods[cmake.__name__] = cmake
    mods[cuda.__name__] = cuda
    sys.modules.update(mods)


# --- a concrete spec, as far as cmake_args() looks -----------------------------------
class _Variant:
    def __init__(self, value):
        self.value = value


class _Prefix(str):
    def __getattr__(self, name):
        return _Prefix(os.path.join(self, name))


class _Dep:
    def __init__(self, name):
        self.name = name
        self.prefix = _Prefix(f"/opt/{name}")
        self.package = types.SimpleNamespace(kokkos_cxx=f"/opt/{name}/bin/nvcc_wrapper")


class FakeSpec:
    def __init__(self, openmp, serial, cuda, mpi, cuda_arch=("none",)):
        self.flags = {"openmp": openmp, "serial": serial, "cuda": cuda, "mpi": mpi}
        self.variants = {k: _Variant(v) for k, v in self.flags.items()}
        self.variants["cuda_arch"] = _Variant(tuple(cuda_arch))
        self.deps = {n: _Dep(n) for n in ("kokkos", "cuda", "cmake", "mpi")}

    def satisfies(self, constraint):
        for tok in constraint.split():
            m = re.fullmatch(r"([+~])(\w+)", tok)
            if m:
                if self.flags.get(m.group(2), False) != (m.group(1) == "+"):
                    return False
                continue
            m = re.fullmatch(r"(\w+)=(\S+)", tok)
            if m:
                if m.group(2) not in self.variants[m.group(1)].value:
                    return False
                continue
            raise ValueError(f"the check's fake spec cannot evaluate '{tok}'")
        return True

    def __getitem__(self, name):
        return self.deps[name]

    def __contains__(self, name):
        return name in self.deps


def cmake_options(cmakelists):
    """SIEVE_* cache options of CMakeLists.txt: name -> allowed values (None: BOOL)."""
    opts = {}
    for m in re.finditer(r"^\s*option\((SIEVE_\w+)", cmakelists, re.M):
        opts[m.group(1)] = None
    for m in re.finditer(r"^\s*set\((SIEVE_\w+)\s+\"?[^\s\"]*\"?\s+CACHE\s+STRING", cmakelists, re.M):
        strings = re.search(r"set_property\(CACHE\s+%s\s+PROPERTY\s+STRINGS\s+([^)]*)\)" % m.group(1), cmakelists)
        opts[m.group(1)] = strings.group(1).split() if strings else []
    return opts


def main():
    cmakelists = open(os.path.join(ROOT, "CMakeLists.txt")).read()
    repo_root = os.path.join(ROOT, "spack", "spack_repo")
    namespaces = [d for d in os.listdir(repo_root) if os.path.isfile(os.path.join(repo_root, d, "repo.yaml"))]
    check(len(namespaces) == 1, f"one Spack repository under spack/spack_repo ({namespaces})")
    ns = namespaces[0]
    repo_yaml = open(os.path.join(repo_root, ns, "repo.yaml")).read()
    check(re.search(r"^\s*namespace:\s*['\"]?%s['\"]?\s*$" % re.escape(ns), repo_yaml, re.M) is not None,
          f"repo.yaml: namespace '{ns}' (= its directory, as Spack 1.x wants)")
    check(re.search(r"^\s*api:\s*v2\.\d+\s*$", repo_yaml, re.M) is not None, "repo.yaml: package API v2.x")
    path = os.path.join(repo_root, ns, "packages", "sieve", "package.py")

    # 1. valid Python
    try:
        with tempfile.TemporaryDirectory() as tmp:  # nothing written next to the package
            py_compile.compile(path, cfile=os.path.join(tmp, "package.pyc"), doraise=True)
        check(True, f"{os.path.relpath(path, ROOT)} compiles")
    except py_compile.PyCompileError as e:
        check(False, f"package.py compiles: {e.msg}")
        return

    # 2. executes against the stand-ins; its directives
    _install_stubs()
    namespace = {"__name__": f"spack_repo.{ns}.packages.sieve.package", "__file__": path}
    exec(compile(open(path).read(), path, "exec"), namespace)
    cls = namespace.get("Sieve")
    check(cls is not None and issubclass(cls, CMakePackage) and issubclass(cls, CudaPackage),
          "class Sieve(CMakePackage, CudaPackage)")
    if cls is None:
        return

    def calls(kind):
        return [(a, k) for (d, a, k) in RECORD if d == kind]

    versions = {a[0]: k for a, k in calls("version")}
    check("main" in versions and versions["main"].get("branch") == "main" and getattr(cls, "git", None),
          "version main: the git repository's main branch")
    unverifiable = sorted(v for v, k in versions.items()
                          if not k.get("branch") and not k.get("commit") and not k.get("sha256"))
    check(not unverifiable, f"every release verifiable by Spack: commit= or sha256= (not: {unverifiable})")
    project_version = re.search(r"project\(Sieve\s+VERSION\s+([0-9.]+)", cmakelists).group(1)
    releases = sorted(v for v, k in versions.items() if not k.get("branch"))
    def vtuple(v):
        return tuple(int(x) for x in re.findall(r"\d+", v))
    check(all(vtuple(v) <= vtuple(project_version) for v in releases),
          f"releases {releases}: none past project(VERSION) {project_version} of CMakeLists.txt")

    variants = {a[0]: k for a, k in calls("variant")}
    for v in ("openmp", "serial"):
        check(v in variants and isinstance(variants[v].get("default"), bool), f"variant {v} (a Kokkos backend)")
    check(hasattr(cls, "cuda_arch_values"), "variants cuda, cuda_arch from CudaPackage")
    check("mpi" in variants and isinstance(variants["mpi"].get("default"), bool), "variant mpi (the distributed face)")
    backends = ["openmp", "serial", "cuda"]

    deps = [(a[0], k.get("when"), k.get("type")) for a, k in calls("depends_on")]
    check(("cxx", None, "build") in deps, "depends_on('cxx', type='build')")
    check(("c", None, "build") in deps,
          "depends_on('c', type='build'): nvcc's host preprocessing through Spack's compiler wrapper")
    kokkos_min = re.search(r"Kokkos_VERSION VERSION_LESS ([0-9.]+)", cmakelists).group(1)
    check((f"kokkos@{kokkos_min}:", None, None) in deps, f"depends_on('kokkos@{kokkos_min}:') (CMakeLists.txt's minimum)")
    for b in backends:
        check((f"kokkos+{b}", f"+{b}", None) in deps, f"depends_on('kokkos+{b}', when='+{b}')")
    check(("mpi", "+mpi", None) in deps, "depends_on('mpi', when='+mpi'): the distributed face's MPI")
    check(("kokkos~cuda", "~cuda", None) in deps, "depends_on('kokkos~cuda', when='~cuda'): the native CUDA face iff Kokkos' CUDA")
    check(all((f"kokkos+cuda cuda_arch={a}", f"+cuda cuda_arch={a}", None) in deps for a in CUDA_ARCH_VALUES),
          "cuda_arch forwarded to Kokkos for every CudaPackage value")
    check(not any(re.match(r"\^?sieve\b", d[0]) for d in deps), "no dependency of sieve on itself")
    check(any(d[0] == "googletest" and d[2] == "test" for d in deps), "googletest as a test dependency (the CTest suite)")
    reqs = [(a[0], k.get("when", "")) for a, k in calls("requires")]
    check(any("^kokkos" in r and "+cuda_lambda" in r and "+cuda" in w for r, w in reqs),
          "requires('^kokkos+cuda_lambda', when='+cuda ...'): a condition on Kokkos itself")

    def cuda_gcc(when):
        toks = (when or "").split()
        return "+cuda" in toks and "%gcc" in toks

    wrapper = ([r for r, w in reqs if re.fullmatch(r"\^kokkos\s*\+wrapper", r) and cuda_gcc(w)] +
               [d for d, w, t in deps if d == "kokkos+wrapper" and cuda_gcc(w)])
    check(bool(wrapper),
          "Kokkos +wrapper for +cuda %gcc (requires('^kokkos+wrapper') or depends_on('kokkos+wrapper')): "
          "Kokkos' package builds CUDA with GCC only through nvcc_wrapper")

    # 3. cmake_args() against CMakeLists.txt's options
    opts = cmake_options(cmakelists)
    tests_cmakelists = open(os.path.join(ROOT, "tests", "CMakeLists.txt")).read()
    # Cache variables of the tests' own (the nvcc install.cpu_only uses): any path.
    test_vars = {m.group(1) for m in re.finditer(r"find_program\((SIEVE_\w+)", tests_cmakelists)}
    check({"SIEVE_ENABLE_TESTS", "SIEVE_ENABLE_OPENMP", "SIEVE_ENABLE_CUDA", "SIEVE_ENABLE_BENCHMARKS"} <= set(opts),
          f"CMakeLists.txt options found: {sorted(opts)}")
    check("BUILD_TESTING" in cmakelists, "CMakeLists.txt follows BUILD_TESTING")
    cases = [
        dict(openmp=True, serial=True, cuda=False, mpi=True, run_tests=False),
        dict(openmp=False, serial=True, cuda=False, mpi=False, run_tests=True),
        dict(openmp=True, serial=False, cuda=True, mpi=True, cuda_arch=("90",), run_tests=True),
    ]
    for case in cases:
        run_tests = case.pop("run_tests")
        pkg = cls.__new__(cls)
        pkg.spec = FakeSpec(**case)
        pkg.run_tests = run_tests
        args = pkg.cmake_args()
        defs = {}
        for a in args:
            m = re.fullmatch(r"-D([A-Za-z_0-9]+)(?::\w+)?=(.*)", a)
            if m is None:
                check(False, f"cmake_args: '{a}' is a -DNAME=VALUE")
            else:
                defs[m.group(1)] = m.group(2)
        label = " ".join(("+" if v else "~") + k for k, v in case.items() if isinstance(v, bool))
        label += f" run_tests={run_tests}"
        for name, value in defs.items():
            if name in test_vars:
                check(run_tests, f"[{label}] -D{name}={value}: a variable of the tests, only with them")
            elif name.startswith("SIEVE_"):
                allowed = opts.get(name, "missing")
                ok = allowed != "missing" and (value in ("ON", "OFF") if allowed is None else value in allowed)
                check(ok, f"[{label}] -D{name}={value}: a CMakeLists.txt option, an allowed value")
        missing = sorted(n for n in opts if n.startswith("SIEVE_ENABLE_") and n not in defs)
        check(not missing, f"[{label}] every SIEVE_ENABLE_* decided (missing: {missing})")
        want = {"SIEVE_ENABLE_OPENMP": "ON" if case["openmp"] else "OFF",
                "SIEVE_ENABLE_CUDA": "ON" if case["cuda"] else "OFF",
                "SIEVE_ENABLE_MPI": "ON" if case["mpi"] else "OFF",
                "SIEVE_ENABLE_TESTS": "ON" if run_tests else "OFF",
                "BUILD_TESTING": "ON" if run_tests else "OFF",
                "Kokkos_ROOT": "/opt/kokkos"}
        if case["cuda"]:
            want["CMAKE_CXX_COMPILER"] = "/opt/kokkos/bin/nvcc_wrapper"
            want["CMAKE_CUDA_ARCHITECTURES"] = "90"
        for name, value in want.items():
            check(defs.get(name) == value, f"[{label}] {name}={defs.get(name)} (want {value})")
        if not case["cuda"]:
            check("CMAKE_CXX_COMPILER" not in defs, f"[{label}] the compiler is Spack's own")
        if not case["cuda"] and run_tests:
            check("SIEVE_TEST_NVCC" in test_vars and defs.get("SIEVE_TEST_NVCC") == "",
                  f"[{label}] SIEVE_TEST_NVCC='' (no nvcc outside the spec for the tests)")

    # 4. the smoke test
    hooks = {name: getattr(fn, "_spack_hooks", []) for name, fn in vars(cls).items() if callable(fn)}
    check(any(any(h[0] == "run_after" and h[1] == ("install",) for h in hs) and
              any(h[0] == "on_package_attributes" and h[2].get("run_tests") for h in hs)
              for hs in hooks.values()),
          "a post-install smoke test when run_tests (spack install --test=root)")
    check(any(name.startswith("test_") for name in hooks), "a standalone test (spack test run)")
    smoke = os.path.join(ROOT, getattr(cls, "smoke_sources", "?"))
    check(os.path.isfile(os.path.join(smoke, "CMakeLists.txt")), f"the smoke test's consumer: {os.path.relpath(smoke, ROOT)}")


if __name__ == "__main__":
    main()
    print(f"install.spack_package: {len(FAILURES)} failed")
    sys.exit(1 if FAILURES else 0)
