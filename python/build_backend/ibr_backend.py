# SPDX-License-Identifier: Apache-2.0
"""The package's build backend (PEP 517), standard library only, so that
`pip install ./python` works offline: it needs no setuptools, wheel or any
other download.

The wheel holds the ibreservoir module and libibreservoir.so. The library is
the file $IBRESERVOIR_LIB names when that is set; otherwise the backend builds
it from this checkout (the directory above python/) with

    go build -buildmode=c-shared -o <temporary>/libibreservoir.so ./capi

which needs the Go toolchain and a C compiler. The package's version is the
Go module's (internal/version), "-dev" written ".dev0" as PEP 440 asks.
"""
import base64
import hashlib
import io
import os
import re
import shutil
import subprocess
import sysconfig
import tarfile
import tempfile
import tomllib
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
REPO = os.path.dirname(HERE)
MODULE = "ibreservoir"
LIBRARY = "libibreservoir.so"


def _project():
    with open(os.path.join(HERE, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _version():
    pkg_info = os.path.join(HERE, "PKG-INFO")  # an sdist's
    if os.path.isfile(pkg_info):
        with open(pkg_info) as f:
            return re.search(r"^Version: (\S+)$", f.read(), re.M).group(1)
    return _git_version()


def _git_version():
    """The version of the checkout, as the Go build names it (internal/version):
    the tag for a tagged commit (v1.2.3 -> 1.2.3), else a development version
    naming the commit (0.0.0.dev0+g<rev>, or 1.2.3.post<n>.dev0+g<rev> n
    commits after a tag), with .dirty for uncommitted changes; 0.0.0.dev0
    outside a git checkout."""
    def git(*args):
        r = subprocess.run(["git", "-C", REPO, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        return r.stdout.strip() if r.returncode == 0 else ""
    if shutil.which("git") is None or not git("rev-parse", "--git-dir"):
        return "0.0.0.dev0"
    dirty = ".dirty" if git("status", "--porcelain", "--untracked-files=no") else ""
    desc = git("describe", "--tags", "--match", "v[0-9]*", "--long")
    m = re.match(r"^v(\d+\.\d+\.\d+)-(\d+)-g([0-9a-f]+)$", desc)
    if m:
        base, n, rev = m.groups()
        if n == "0":
            return base + ("+dirty" if dirty else "")
        return f"{base}.post{n}.dev0+g{rev}{dirty}"
    rev = git("rev-parse", "--short=12", "HEAD")
    return f"0.0.0.dev0+g{rev}{dirty}" if rev else "0.0.0.dev0"


def _library(tmp):
    """The path of the library to put in the wheel."""
    given = os.environ.get("IBRESERVOIR_LIB")
    if given:
        if not os.path.isfile(given):
            raise RuntimeError(f"IBRESERVOIR_LIB is {given}, which is not a file")
        return given
    if shutil.which("go") is None:
        raise RuntimeError("building libibreservoir needs the go command, which is not on PATH; "
                           "or set IBRESERVOIR_LIB to a library built with go build -buildmode=c-shared ./capi")
    if not os.path.isfile(os.path.join(REPO, "capi", "capi.go")):
        raise RuntimeError(f"no ibreservoir checkout at {REPO} to build libibreservoir from; "
                           "set IBRESERVOIR_LIB to a built library")
    out = os.path.join(tmp, LIBRARY)
    r = subprocess.run(["go", "build", "-buildmode=c-shared", "-o", out, "./capi"], cwd=REPO,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"go build -buildmode=c-shared ./capi failed:\n{r.stdout}")
    return out


def _tag():
    return "py3-none-" + re.sub(r"[-.]", "_", sysconfig.get_platform())


def _metadata(version):
    p = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {version}", f"Summary: {p['description']}",
             f"Requires-Python: {p['requires-python']}"]
    if "license" in p:
        lines.append(f"License: {p['license']['text']}")
    return "\n".join(lines) + "\n"


def _dist_info(version):
    return f"{MODULE}-{version}.dist-info"


def _write_dist_info(directory, version):
    d = os.path.join(directory, _dist_info(version))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w") as f:
        f.write(_metadata(version))
    return os.path.basename(d)


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


# ---- PEP 517 hooks

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_dist_info(metadata_directory, _version())


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    name = f"{MODULE}-{version}-{_tag()}.whl"
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        src = os.path.join(HERE, MODULE)
        for f in sorted(os.listdir(src)):
            if f.endswith(".py"):
                with open(os.path.join(src, f), "rb") as fh:
                    files[f"{MODULE}/{f}"] = fh.read()
        with open(_library(tmp), "rb") as fh:
            files[f"{MODULE}/{LIBRARY}"] = fh.read()
        info = _dist_info(version)
        files[f"{info}/METADATA"] = _metadata(version).encode()
        files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: ibr_backend\nRoot-Is-Purelib: false\n"
                                  f"Tag: {_tag()}\n").encode()
        record = [_record_line(n, d) for n, d in files.items()] + [f"{info}/RECORD,,"]
        files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
        path = os.path.join(wheel_directory, name)
        with zipfile.ZipFile(path + ".part", "w", zipfile.ZIP_DEFLATED) as z:
            for n, d in files.items():
                zi = zipfile.ZipInfo(n, date_time=(1980, 1, 1, 0, 0, 0))
                zi.external_attr = (0o755 if n.endswith(".so") else 0o644) << 16
                zi.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(zi, d)
        os.replace(path + ".part", path)  # whole or not at all
    return name


def build_sdist(sdist_directory, config_settings=None):
    """The python/ directory alone: building a wheel from it needs
    IBRESERVOIR_LIB (it holds no Go source)."""
    version = _version()
    base = f"{MODULE}-{version}"
    path = os.path.join(sdist_directory, base + ".tar.gz")
    with tarfile.open(path + ".part", "w:gz") as t:
        for rel in ("pyproject.toml", "build_backend/ibr_backend.py", f"{MODULE}/__init__.py"):
            t.add(os.path.join(HERE, rel), arcname=f"{base}/{rel}")
        data = _metadata(version).encode()
        ti = tarfile.TarInfo(f"{base}/PKG-INFO")
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
    os.replace(path + ".part", path)
    return base + ".tar.gz"
