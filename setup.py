# SPDX-License-Identifier: Apache-2.0
"""Builds the openvgf Python package (python/openvgf + the _openvgf extension) with CMake.

The extension is the CMake target openvgf_python, built in build/pip (kept between installs,
so a second install only rebuilds what changed) with the interpreter running pip. Set
OPENVGF_CMAKE_BUILD_DIR to an already configured openvgf build tree to build there instead,
and OPENVGF_CMAKE_ARGS to add arguments to the first configuration of build/pip.
"""

import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(openvgf VERSION ([0-9.]+)", text).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = pathlib.Path(os.environ.get("OPENVGF_CMAKE_BUILD_DIR", ROOT / "build" / "pip")).resolve()
        package_dir = build_dir / "python"
        if not (build_dir / "CMakeCache.txt").exists():
            configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                         "-DOPENVGF_BUILD_TESTS=OFF", "-DOPENVGF_BUILD_BENCHMARKS=OFF",
                         f"-DPython_EXECUTABLE={sys.executable}", f"-DOPENVGF_PYTHON_DIR={package_dir}"]
            configure += shlex.split(os.environ.get("OPENVGF_CMAKE_ARGS", ""))
            if shutil.which("ninja"):
                configure += ["-G", "Ninja"]
            subprocess.check_call(configure)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "openvgf_python", "-j", jobs])
        built = next((build_dir / "python" / "openvgf").glob("_openvgf*.so"))
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


setup(
    version=project_version(),
    packages=["openvgf"],
    package_dir={"openvgf": "python/openvgf"},
    ext_modules=[Extension("openvgf._openvgf", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": "build/setuptools"}, "egg_info": {"egg_base": "build"}},
    zip_safe=False,
)
