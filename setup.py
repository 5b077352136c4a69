"""Builds the kprof wheel with CMake (`pip install .`, `pip wheel .`).

The wheel holds what CMake installs, and nothing else:
  - the package `kprof`: the extension _kprof plus the files python/CMakeLists.txt installs
    (KPROF_PYTHON_FILES: the pure-Python layer, the .pyi stubs, py.typed);
  - the `kprof` command: the CLI binary (target kprof_exe), as a wheel script, so that pip puts
    it on the environment's PATH (<env>/bin/kprof) with its executable bit.

Steps: configure (unless the tree is already configured), `cmake --build` of the two targets,
`cmake --install --strip` into a staging prefix, then copy the staged package into setuptools'
build_lib and the binary into its scripts dir. The version is the one in CMakeLists.txt's
`project(kprof VERSION x.y.z)` line, the same one CMake compiles into `kprof --version` and
`kprof.__version__`.

Environment:
  KPROF_CMAKE_BUILD_DIR  an existing CMake build tree of this checkout (configured with
                         -DKPROF_ENABLE_PYTHON=ON for the Python that runs pip) to reuse: only
                         what is missing is built. Default: a tree of its own under build/pip/.
  CMAKE_ARGS             extra arguments for the configure step of a new tree.
  CMAKE_BUILD_PARALLEL_LEVEL  build jobs (default: all cores).
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Command, Distribution, Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.install_scripts import install_scripts
from setuptools.errors import SetupError

ROOT = Path(__file__).resolve().parent
# setuptools' own build and metadata dirs, kept under build/ (ignored by git) so that a build
# leaves nothing else in the checkout.
BUILD_BASE = "build/pip"


def cmake_project_version() -> str:
    """The x.y.z of `project(kprof VERSION x.y.z ...)` in the top-level CMakeLists.txt."""
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    match = re.search(r"^\s*project\(\s*kprof\b[^)]*?\bVERSION\s+([0-9]+(?:\.[0-9]+){0,3})\b", text,
                      re.MULTILINE | re.DOTALL)
    if not match:
        raise SetupError("CMakeLists.txt has no `project(kprof VERSION x.y.z)` line")
    return match.group(1)


def read_cmake_cache(tree: Path) -> dict:
    values = {}
    cache = tree / "CMakeCache.txt"
    for line in cache.read_text(encoding="utf-8", errors="replace").splitlines():
        match = re.match(r"^([A-Za-z0-9_.+-]+):[A-Z]+=(.*)$", line)
        if match:
            values[match.group(1)] = match.group(2)
    return values


def run(command: list, **kwargs) -> None:
    print("kprof setup.py: " + shlex.join(str(part) for part in command), flush=True)
    subprocess.run([str(part) for part in command], check=True, **kwargs)


class CMakeExtension(Extension):
    """The _kprof extension, built by CMake rather than by setuptools' compiler."""

    def __init__(self, name: str):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    """Builds the extension and the CLI with CMake and stages the whole `kprof` package."""

    kprof_binary = None  # the staged CLI, for CopyCliBinary

    def build_extension(self, ext: Extension) -> None:
        if self.inplace or getattr(self, "editable_mode", False):
            raise SetupError("kprof does not support in-place (editable) installs; use "
                             "`pip install .`, or PYTHONPATH=<build>/python with a CMake build")
        reuse = os.environ.get("KPROF_CMAKE_BUILD_DIR")
        tree = Path(reuse).resolve() if reuse else Path(self.build_temp).resolve() / "cmake"
        if not (tree / "CMakeCache.txt").is_file():
            self.configure(tree)
        cache = read_cmake_cache(tree)
        self.check_tree(tree, cache)

        build = ["cmake", "--build", tree, "--target", "_kprof", "kprof_exe"]
        if self.parallel:
            build += ["-j", str(self.parallel)]
        elif "CMAKE_BUILD_PARALLEL_LEVEL" not in os.environ:
            build += ["-j", str(os.cpu_count() or 1)]
        run(build)

        # Everything CMake installs goes to a fresh staging prefix; the wheel takes the package
        # directory and bin/kprof from it.
        stage = Path(self.build_temp).resolve() / "stage"
        shutil.rmtree(stage, ignore_errors=True)
        run(["cmake", "--install", tree, "--prefix", stage, "--strip"])
        python_dir = cache.get("KPROF_PYTHON_INSTALL_DIR", "lib/python3/dist-packages")
        staged_package = stage / python_dir / "kprof"
        staged_binary = stage / "bin" / "kprof"

        ext_path = Path(self.get_ext_fullpath(ext.name))
        if not (staged_package / ext_path.name).is_file():
            found = sorted(p.name for p in staged_package.glob("_kprof*"))
            raise SetupError(
                f"the CMake tree {tree} built {found or 'no _kprof module'}, not {ext_path.name}: "
                f"it was configured for another Python ({cache.get('Python3_EXECUTABLE')}); "
                f"configure it with -DPython3_EXECUTABLE={sys.executable}")
        if not staged_binary.is_file():
            raise SetupError(f"`cmake --install` of {tree} did not install bin/kprof")

        package_dir = ext_path.parent
        shutil.rmtree(package_dir, ignore_errors=True)
        shutil.copytree(staged_package, package_dir)
        self.kprof_binary = staged_binary

    def configure(self, tree: Path) -> None:
        command = ["cmake", "-S", ROOT, "-B", tree,
                   "-DCMAKE_BUILD_TYPE=Release",
                   "-DKPROF_ENABLE_PYTHON=ON",
                   "-DKPROF_ENABLE_TESTS=OFF",
                   f"-DPython3_EXECUTABLE={sys.executable}"]
        if "CMAKE_GENERATOR" not in os.environ and shutil.which("ninja"):
            command += ["-G", "Ninja"]
        try:
            # pybind11 from the build requirements (isolated builds); otherwise CMake finds the
            # system's (Debian's pybind11-dev).
            import pybind11  # noqa: PLC0415

            command.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
        except ImportError:
            pass
        command += shlex.split(os.environ.get("CMAKE_ARGS", ""))
        run(command)

    @staticmethod
    def check_tree(tree: Path, cache: dict) -> None:
        home = cache.get("CMAKE_HOME_DIRECTORY", "")
        if not home or Path(home).resolve() != ROOT:
            raise SetupError(f"the CMake tree {tree} is a build of {home or 'nothing'}, not of {ROOT}")
        if cache.get("KPROF_ENABLE_PYTHON", "").upper() not in ("ON", "1", "TRUE", "YES"):
            raise SetupError(f"the CMake tree {tree} was configured without -DKPROF_ENABLE_PYTHON=ON")
        if Path(cache.get("KPROF_PYTHON_INSTALL_DIR", "")).is_absolute():
            raise SetupError(f"the CMake tree {tree} has an absolute KPROF_PYTHON_INSTALL_DIR")


class CopyCliBinary(Command):
    """build_scripts: the wheel's only script is the CLI binary build_ext staged, copied with its
    executable bit (setuptools' own build_scripts would look for script files in the checkout)."""

    description = "copy the kprof CLI binary into the build's scripts dir"
    user_options: list = []

    def initialize_options(self) -> None:
        self.build_dir = None

    def finalize_options(self) -> None:
        self.set_undefined_options("build", ("build_scripts", "build_dir"))

    def run(self) -> None:
        self.run_command("build_ext")
        binary = self.get_finalized_command("build_ext").kprof_binary
        if binary is None:
            raise SetupError("build_ext did not build the kprof CLI")
        shutil.rmtree(self.build_dir, ignore_errors=True)
        self.mkpath(self.build_dir)
        target = Path(self.build_dir) / "kprof"
        shutil.copyfile(binary, target)
        os.chmod(target, 0o755)

    def get_source_files(self) -> list:
        return []


class InstallCliBinary(install_scripts):
    """Installs what CopyCliBinary built (setuptools' install_scripts does so only when script
    files are listed, and adds entry-point wrappers, of which kprof has none)."""

    def run(self) -> None:
        if not self.skip_build:
            self.run_command("build_scripts")
        self.outfiles = self.copy_tree(self.build_dir, self.install_dir)


class KprofDistribution(Distribution):
    """Has a script (the CLI binary) although no script file is listed."""

    def has_scripts(self) -> bool:
        return True


Path(ROOT / BUILD_BASE).mkdir(parents=True, exist_ok=True)
setup(
    version=cmake_project_version(),
    distclass=KprofDistribution,
    # The package comes whole from CMake (build_ext); no setuptools package discovery.
    packages=[],
    py_modules=[],
    ext_modules=[CMakeExtension("kprof._kprof")],
    cmdclass={"build_ext": CMakeBuild, "build_scripts": CopyCliBinary,
              "install_scripts": InstallCliBinary},
    options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
    zip_safe=False,
)
