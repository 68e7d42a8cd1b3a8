"""The packaging scripts' bad input: one line and a status that is not 0, before anything is built.

The package test itself (scripts/test-package.sh: both releases' packages, from their apt
repository, in clean Debian 12 and 13 roots) is the last stage of scripts/test.sh, after this
suite. These are the refusals that come first, and the README lines it runs.
"""

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*command, **environment):
    return subprocess.run([str(ROOT / command[0]), *command[1:]], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env={**os.environ, **environment})


def assert_one_line(result, status, message):
    assert result.returncode == status, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert "package: staging" not in result.stdout, "it built before refusing"


def test_an_unknown_release_is_refused_in_one_line():
    for script in ("scripts/package.sh", "scripts/test-package.sh"):
        result = run(script, "--release", "sid")
        assert_one_line(result, 2, "unknown release 'sid': bookworm (Debian 12) or trixie (Debian 13)")


def test_a_signing_key_without_a_repository_is_refused():
    assert_one_line(run("scripts/package.sh", "--signing-key", "ABCDEF"), 2, "--signing-key signs a repository")


def test_a_repository_without_its_address_is_refused(tmp_path):
    """Each release's .sources names where the repository is published: --url is needed, and is an
    http(s) address; --url alone names no repository."""
    for address in ([], ["--url", "onair.example/apt"], ["--url", "ftp://onair.example/apt"]):
        result = run("scripts/package.sh", "--repository", str(tmp_path / "repository"), *address)
        assert_one_line(result, 2, "--repository needs --url, the http(s) address DIR will be published at")
    assert_one_line(run("scripts/package.sh", "--url", "https://onair.example/apt"), 2,
                    "--url is where a repository is published")
    assert not (tmp_path / "repository").exists()


def test_a_repository_without_a_secret_key_is_refused(tmp_path):
    empty = tmp_path / "gnupg"
    empty.mkdir(mode=0o700)
    result = run("scripts/package.sh", "--repository", str(tmp_path / "repository"),
                 "--url", "https://onair.example/apt", GNUPGHOME=str(empty))
    assert_one_line(result, 2, "no OpenPGP secret key")
    assert not (tmp_path / "repository").exists()


def test_a_build_root_that_cannot_be_made_says_so(tmp_path):
    """A package is built in a root of its release: with no archive to make it from, one line says
    which root could not be made, and from where, and the script fails before building."""
    own = re.search(r"^VERSION_CODENAME=(\w+)", Path("/etc/os-release").read_text(), re.M).group(1)
    other = "trixie" if own == "bookworm" else "bookworm"
    result = run("scripts/package.sh", "--release", other, ONAIR_ROOTS=str(tmp_path / "roots"),
                 ONAIR_MIRROR="http://127.0.0.1:9/debian")
    assert result.returncode != 0, result.stdout
    failures = [line for line in result.stderr.splitlines() if line.startswith("package: FAILED")]
    assert len(failures) == 1, result.stderr
    assert f"no Debian {other} root could be made" in failures[0] and "http://127.0.0.1:9/debian" in failures[0]
    assert "building in the" not in result.stdout


def test_the_readme_install_lines_are_the_ones_the_package_test_runs():
    """test-package.sh runs the lines between the README's markers, with the address put in."""
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- install-from-repository -->\n(.*?)<!-- end -->", readme, re.S).group(1)
    lines = [line[4:] for line in block.splitlines() if line.startswith("    ")]
    # Two lines: the release's entry (address, suite and key in one deb822 file), then the install.
    assert len(lines) == 2, lines
    assert lines[0].startswith("sudo curl -fsSLo /etc/apt/sources.list.d/onair.sources https://onair.example/apt/")
    assert lines[0].endswith("$(. /etc/os-release && echo $VERSION_CODENAME).sources")
    assert lines[1] == "sudo apt update && sudo apt install onair"
    script = (ROOT / "scripts/test-package.sh").read_text()
    assert "install-from-repository" in script and "https://onair.example/apt" in script
