# SPDX-License-Identifier: Apache-2.0
# Sieve's Spack package (Spack 1.x, package API v2).
#
#   spack repo add <checkout>/spack/spack_repo/sieve
#   spack install sieve+openmp                 # host: OpenMP twins + Kokkos' OpenMP
#   spack install sieve+cuda cuda_arch=90      # + the native CUDA face, Kokkos' CUDA
#                                              #   (with GCC: Kokkos +wrapper, implied)
#   spack dev-build --test=root -d <checkout> sieve@main+openmp   # a checkout, with tests
#
# Sieve's backends are Kokkos' backends: each variant asks the same of Kokkos, and
# the installed SieveConfig.cmake checks that consumers use this very Kokkos.
# tests/install/check_spack_package.py (CTest install.spack_package) keeps this
# file in step with the CMake options.
import os

from spack_repo.builtin.build_systems.cmake import CMakePackage
from spack_repo.builtin.build_systems.cuda import CudaPackage

from spack.package import *

#: PLACEHOLDER: where Sieve's git repository will be published. Change it here
#: (one place) when it is; until then use `spack dev-build -d <checkout>` or
#: `spack develop` with `sieve@main`, which build a local checkout and fetch nothing.
SIEVE_GIT = "https://github.com/sieve-hpc/sieve.git"


class Sieve(CMakePackage, CudaPackage):
    """Fast, portable filtering primitives for Kokkos codes: prefix scan, stream
    compaction to an index map, a locality trigger with a physical reorder (and
    restore) of structure-of-arrays planes, findall, scatter/reduce/group by key."""

    homepage = SIEVE_GIT[: -len(".git")]
    git = SIEVE_GIT

    license("Apache-2.0")

    # The one version until a release is published: the main branch. A release is
    # added only in a form Spack can verify, e.g. for the top-level CMakeLists.txt's
    # project(VERSION) 0.1.0, once its tag exists at SIEVE_GIT:
    #   version("0.1.0", tag="v0.1.0", commit="<the tag's 40-hex commit>")
    # (or a release tarball's url= and sha256=); never a bare tag (unverifiable:
    # Spack warns on every concretization and cannot fetch it here).
    version("main", branch="main")

    # Kokkos' backends. Sieve has no backend of its own: its Kokkos API runs on
    # every backend Kokkos has (native CUDA on Cuda, the OpenMP twins on OpenMP,
    # a portable implementation elsewhere, Serial included).
    variant("openmp", default=True, description="Kokkos' OpenMP backend and Sieve's OpenMP host twins")
    variant("serial", default=True, description="Kokkos' Serial backend")
    # cuda and cuda_arch come from CudaPackage: the native CUDA face and Kokkos' CUDA.
    variant("mpi", default=True,
            description="The distributed face (Sieve::mpi, sieve/mpi.hpp): global compaction "
                        "offsets and rebalancing across MPI ranks")

    depends_on("cxx", type="build")
    # nvcc runs the host C compiler (`gcc -E`) to learn its properties: for +cuda,
    # and for a test that finds a CUDA toolkit. In Spack's build environment that
    # compiler is Spack's wrapper, which needs the c dependency (else "SPACK_CC_*
    # variables not set").
    depends_on("c", type="build")
    depends_on("cmake@3.16:", type="build")
    depends_on("googletest", type="test")

    depends_on("kokkos@3.4:")
    depends_on("mpi", when="+mpi")
    for _backend in ("openmp", "serial", "cuda"):
        depends_on(f"kokkos+{_backend}", when=f"+{_backend}")
    # The native CUDA face is built exactly when Kokkos has CUDA.
    depends_on("kokkos~cuda", when="~cuda")
    # One CUDA architecture, the same as Kokkos' (Kokkos takes exactly one).
    for _arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos+cuda cuda_arch={_arch}", when=f"+cuda cuda_arch={_arch}")
    conflicts("+cuda", when="cuda_arch=none", msg="Sieve +cuda needs a cuda_arch (as Kokkos does)")

    # Conditions on Kokkos itself: device lambdas (always on from Kokkos 5).
    requires("^kokkos+cuda_lambda", when="+cuda ^kokkos@:4",
             msg="Sieve's Kokkos API launches device lambdas: Kokkos needs +cuda_lambda")
    # Kokkos' package builds +cuda with GCC only through nvcc_wrapper (its
    # cmake_args stop otherwise: "Kokkos requires +wrapper when using +cuda without
    # %clang, %cce or +cmake_lang"), and Sieve then compiles with the same
    # kokkos_cxx: so `spack install sieve+cuda cuda_arch=90` alone concretizes to a
    # Kokkos that builds.
    requires("^kokkos+wrapper", when="+cuda %gcc",
             msg="Sieve +cuda with GCC: Kokkos' package builds CUDA with GCC only "
                 "through nvcc_wrapper (^kokkos+wrapper)")

    test_requires_compiler = True

    def cmake_args(self):
        spec = self.spec
        kokkos = spec["kokkos"]
        args = [
            self.define("Kokkos_ROOT", kokkos.prefix),
            self.define_from_variant("SIEVE_ENABLE_OPENMP", "openmp"),
            self.define("SIEVE_ENABLE_CUDA", "ON" if spec.satisfies("+cuda") else "OFF"),
            self.define("SIEVE_ENABLE_MPI", "ON" if spec.satisfies("+mpi") else "OFF"),
            self.define("BUILD_TESTING", self.run_tests),
            self.define("SIEVE_ENABLE_TESTS", self.run_tests),
            self.define("SIEVE_ENABLE_BENCHMARKS", False),
            self.define("SIEVE_ENABLE_FUZZER", False),  # a developer tool (clang, libFuzzer)
        ]
        if self.run_tests and not spec.satisfies("+cuda"):
            # The tests use only what the spec has: install.cpu_only would otherwise
            # look for the machine's nvcc (/usr/local/cuda/bin, PATH) to configure a
            # CUDA case, with a toolkit that is no dependency of a ~cuda spec (and that
            # may not accept Spack's compiler). Set, the search is skipped.
            args.append(self.define("SIEVE_TEST_NVCC", ""))
        if spec.satisfies("+cuda"):
            # Kokkos' own compiler (nvcc_wrapper unless Kokkos was built with clang).
            args.append(self.define("CMAKE_CXX_COMPILER", kokkos.package.kokkos_cxx))
            args.append(self.define("CMAKE_CUDA_COMPILER", spec["cuda"].prefix.bin.nvcc))
            archs = [a for a in spec.variants["cuda_arch"].value if a != "none"]
            if archs:
                args.append(self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(archs)))
        return args

    # --- the smoke test: a tiny consumer (tests/downstream) built against the
    # installed prefix with find_package(Sieve), then run.
    smoke_sources = join_path("tests", "downstream")

    def _smoke(self, source_dir, work_dir):
        cmake_exe = which("cmake")
        if "cmake" in self.spec and os.path.exists(self.spec["cmake"].prefix.bin.cmake):
            cmake_exe = Executable(self.spec["cmake"].prefix.bin.cmake)
        if cmake_exe is None:
            raise InstallError("Sieve's smoke test needs cmake")
        build_dir = join_path(work_dir, "build")
        args = [
            "-S", source_dir, "-B", build_dir,
            self.define("CMAKE_BUILD_TYPE", "Release"),
            self.define("CMAKE_PREFIX_PATH", self.prefix),  # Sieve finds its Kokkos itself
        ]
        if self.spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CXX_COMPILER", self.spec["kokkos"].package.kokkos_cxx))
        cmake_exe(*args)
        cmake_exe("--build", build_dir)
        consumer = Executable(join_path(build_dir, "downstream"))
        out = consumer(output=str, error=str, extra_env={"OMP_PROC_BIND": "false", "OMP_NUM_THREADS": "2"})
        if "ok" not in out:
            raise InstallError(f"Sieve's smoke test failed: {out}")
        print(out.strip())
        if self.spec.satisfies("+mpi"):
            # The distributed face, as one rank (MPI's singleton start, no launcher).
            consumer = Executable(join_path(build_dir, "downstream_mpi"))
            print(consumer(output=str, error=str, extra_env={"OMP_PROC_BIND": "false"}).strip())

    @run_after("install")
    @on_package_attributes(run_tests=True)
    def check_install(self):
        """After `spack install --test=root`: build and run a consumer of the prefix."""
        self._smoke(join_path(self.stage.source_path, self.smoke_sources),
                    join_path(self.stage.path, "sieve-smoke"))

    @run_after("install")
    def cache_smoke_sources(self):
        cache_extra_test_sources(self, [self.smoke_sources])

    def test_downstream(self):
        """build and run a consumer of the installed Sieve (find_package(Sieve))"""
        source = join_path(self.test_suite.current_test_cache_dir, self.smoke_sources)
        self._smoke(source, os.path.abspath("sieve-smoke"))  # in the test's stage
