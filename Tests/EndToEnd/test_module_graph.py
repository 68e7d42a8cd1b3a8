"""The modules follow the C boundary, read from the package graph itself
(`swift package dump-package`): libav is reached only through `Media`, and the server, the HLS
model, publication and the origin reach no libav; the origin knows no HTTP; every module has a
unit-test target named after it."""
import json
import subprocess
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Modules that must build without FFmpeg: what an origin and the fuzzers are made of.
WITHOUT_LIBAV = ["Runtime", "HLSModel", "HLS", "Origin", "Server"]


@cache
def package():
    out = subprocess.run(
        ["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(out.stdout)


def targets():
    return {target["name"]: target for target in package()["targets"]}


def direct(target):
    """The package's own targets a target names (products of other packages are not C modules)."""
    names = []
    for dependency in target["dependencies"]:
        for kind in ("byName", "target"):
            if kind in dependency:
                names.append(dependency[kind][0])
    return names


def reach(name):
    """Every target of the package `name` depends on, directly or not."""
    seen, todo = set(), [name]
    every = targets()
    while todo:
        for dependency in direct(every[todo.pop()]):
            if dependency in every and dependency not in seen:
                seen.add(dependency)
                todo.append(dependency)
    return seen


def test_only_media_names_libav():
    naming = sorted(name for name, target in targets().items() if "CFFmpeg" in direct(target))
    assert naming == ["Media"], f"targets that depend on CFFmpeg directly: {naming}"


def test_the_server_and_publication_build_without_libav():
    every = targets()
    for name in WITHOUT_LIBAV:
        assert name in every, f"no target {name} in Package.swift"
        reached = reach(name)
        assert "CFFmpeg" not in reached and "Media" not in reached, (
            f"{name} reaches {sorted(reached & {'CFFmpeg', 'Media'})} through {sorted(reached)}"
        )
    # The graph is read right: the publisher does reach libav.
    assert "CFFmpeg" in reach("Publisher")


def test_the_origin_is_no_http():
    """The origin's channels (their life, budgets, eviction) know no HTTP: the server's ingest
    routes call them."""
    origin = targets()["Origin"]
    products = [dependency["product"][0] for dependency in origin["dependencies"] if "product" in dependency]
    assert not products, f"Origin depends on {products}"
    assert "Origin" in direct(targets()["Server"])


def test_every_module_has_a_test_target_named_after_it():
    every = targets()
    modules = [name for name, target in every.items() if target["type"] == "regular" and not name.startswith("C")]
    modules = [name for name in modules if name != "FuzzDriver"]
    missing = [name for name in modules if f"{name}Tests" not in every]
    assert not missing, f"modules without a test target: {missing}"
    # The command line's own tests.
    assert "OnairTests" in every
