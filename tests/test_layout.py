"""The house's layout (docs/INTERFACES.md): each folder is a layer, data flows one
way, the runtime never needs the training lab, and the Pi's install leaves the lab out.

Every import of the project's own modules is read with ``ast`` (those inside
functions and under ``TYPE_CHECKING`` too) and checked against the folders' layers:

    scorer, firmware  <  vision, common  <  companion  <  web  <  club  <  cli

Every module of a package is its package's layer; a module may import its own
layer or a lower one, never a higher one. Nothing in the packages imports
``benchmarks`` (the benchmarks are scripts over the packages). The reader's lab
(``vision/lab``) stands apart: the runtime (every layer below ``cli``) never
imports it; the lab itself imports only scorer and vision's public names; the
commands (``cli``) may reach it, inside a function, for the lab's own work (the
demo's virtual table, training, evaluation, the speed bench).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Each package (a folder of the checkout) and its layer, lowest first.
LAYERS = {"scorer": 0, "firmware": 0, "vision": 1, "common": 1, "companion": 2, "web": 3,
          "club": 4, "cli": 5}
PACKAGES = tuple(LAYERS)
LAB = "vision.lab"
COMMANDS = LAYERS["cli"]
# Folders of the checkout that are Python packages but not the product's layers.
NOT_LAYERS = {"benchmarks", "tests"}
OURS = (*PACKAGES, "benchmarks")


def layer(module: str) -> int | str:
    """The layer of one of the project's modules: its package's number (the lab apart)."""
    if module == LAB or module.startswith(LAB + "."):
        return LAB
    return LAYERS[module.split(".")[0]]


def layer_name(number: int | str) -> str:
    return str(number) if number == LAB else "/".join(p for p, n in LAYERS.items()
                                                        if n == number)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, module, names) of every import in ``path`` of the project's own modules,
    wherever it stands in the file; relative imports resolved."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            names = [alias.name for alias in node.names]
            # ``from vision import reader`` imports the module vision.reader.
            found += [(node.lineno, f"{base}.{n}", []) if _is_module(f"{base}.{n}")
                      else (node.lineno, base, [n]) for n in names]
    return [(line, mod, names) for line, mod, names in found if mod.split(".")[0] in OURS]


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def sources() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def test_every_package_folder_is_a_layer_and_the_layers_know_every_module() -> None:
    folders = {p.parent.name for p in ROOT.glob("*/__init__.py")}
    assert folders - NOT_LAYERS == set(PACKAGES), \
        "a package folder the layers do not know, or a layer with no folder"
    assert {module_name(p) for p in sources()} >= {
        "scorer.scoring", "vision.reader", "vision.lab.render", "common.topics",
        "companion.pipeline", "web.gamebook", "club.server", "club.pages", "cli.outputs",
        "cli.cmd_run", "cli.cmd_vision"}
    for path in sources():
        # Every module of a package is that package's layer (the lab apart).
        module = module_name(path)
        top = path.relative_to(ROOT).parts[0]
        assert layer(module) in (LAYERS[top], LAB)
        assert (layer(module) == LAB) == (path.relative_to(ROOT).parts[:2] == ("vision", "lab"))


def test_no_module_imports_a_higher_layer() -> None:
    wrong = []
    for path in sources():
        here = layer(module_name(path))
        for line, module, _ in imports(path):
            if module.split(".")[0] == "benchmarks":
                continue  # the next test
            there = layer(module)
            if here == LAB or there == LAB:
                continue  # the test after
            assert isinstance(here, int) and isinstance(there, int)
            if there > here:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {module_name(path)} "
                             f"({layer_name(here)}) imports {module} "
                             f"({layer_name(there)})")
    assert not wrong, "imports against the data flow:\n" + "\n".join(wrong)


def test_nothing_in_the_packages_imports_the_benchmarks() -> None:
    wrong = [f"{path.relative_to(ROOT)}:{line}: imports {module}"
             for path in sources() for line, module, _ in imports(path)
             if module.split(".")[0] == "benchmarks"]
    assert not wrong, "\n".join(wrong)
    # Nor reaches them by path, as vision/cli.py did with a sys.path insert.
    reaching = [str(p.relative_to(ROOT)) for p in sources()
                if "sys.path.insert" in p.read_text(encoding="utf-8")]
    assert not reaching, reaching


def test_the_runtime_never_imports_the_lab_and_the_lab_only_the_public_runtime() -> None:
    wrong = []
    for path in sources():
        here = layer(module_name(path))
        where = f"{path.relative_to(ROOT)}"
        for line, module, names in imports(path):
            if module.split(".")[0] == "benchmarks":
                continue
            there = layer(module)
            if there == LAB and here not in (LAB, COMMANDS):
                wrong.append(f"{where}:{line}: the runtime imports the lab ({module})")
            if here == LAB and there != LAB:
                if module.split(".")[0] not in ("scorer", "vision"):
                    wrong.append(f"{where}:{line}: the lab imports {module}, above the reader")
                private = [n for n in names if n.startswith("_")]
                if private:
                    wrong.append(f"{where}:{line}: the lab imports private {module}.{private}")
    assert not wrong, "\n".join(wrong)


def test_commands_reach_the_lab_only_inside_a_function() -> None:
    for path in sources():
        if layer(module_name(path)) != COMMANDS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:  # module level only
            if isinstance(node, ast.ImportFrom | ast.Import):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [
                    a.name for a in node.names]
                assert not any(n.startswith("vision.lab") for n in names), \
                    f"{path.relative_to(ROOT)}:{node.lineno} imports the lab at load time"


def test_the_checker_sees_imports_inside_functions_and_relative_ones(tmp_path: Path) -> None:
    """The checks above would pass on nothing: they do find a nested import."""
    sample = ROOT / "companion" / "pipeline.py"
    found = {module for _, module, _ in imports(sample)}
    # companion.pipeline imports these only inside functions or under TYPE_CHECKING.
    assert {"scorer.events", "vision.tracker", "companion.service"} <= found
    # cli.cmd_vision reaches the lab inside functions only.
    assert "vision.lab.speed" in {m for _, m, _ in imports(ROOT / "cli" / "cmd_vision.py")}
    assert layer("cli.main") > layer("club.pages") > layer("web.api") \
        > layer("companion.pipeline") > layer("vision.reader") > layer("scorer.game")
    assert layer("common.topics") < layer("companion.club_link")
    assert layer("vision.lab.virtual_table") == LAB and layer("cli.cmd_demo") == COMMANDS


# A Python started with the lab unimportable, as on the table's Pi.
NO_LAB = """
import importlib.abc, sys
class NoLab(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "vision.lab" or name.startswith("vision.lab."):
            raise ModuleNotFoundError(f"No module named {name!r} (left out, as on the Pi)",
                                      name=name)
        return None
sys.meta_path.insert(0, NoLab())
"""


def _without_lab(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", NO_LAB + code], capture_output=True,
                          text=True, timeout=300, cwd=tmp_path,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
                               "OMP_NUM_THREADS": "1"})


def test_the_runtime_reads_cards_and_serves_the_table_without_the_lab(tmp_path: Path) -> None:
    runtime = [module_name(p) for p in sources()
               if layer(module_name(p)) not in (LAB, COMMANDS) and p.stem != "main"
               and not module_name(p).startswith("firmware.")]
    frame = sorted((ROOT / "tests" / "vision" / "frames").glob("*.jpg"))[0]
    code = f"""
import importlib, json
for name in {runtime!r}:
    importlib.import_module(name)
try:
    import vision.lab
except ModuleNotFoundError:
    pass
else:
    raise SystemExit("the lab was importable")
from vision.reader import CardReader, load_image
cards = [d.code for d in CardReader(threads=1).read(load_image({str(frame)!r})) if d.code]
from companion.pipeline import open_table
import web
store, service = open_table(__import__("pathlib").Path("t.db"), "ffb", say=lambda _: None)
app = web.create_app(service)
state = app.test_client().get("/api/state").json
store.close()
print(json.dumps({{"cards": cards, "phase": state["phase"]}}))
"""
    run = _without_lab(code, tmp_path)
    assert run.returncode == 0, run.stderr
    out = __import__("json").loads(run.stdout.strip().splitlines()[-1])
    assert out["cards"], "the reader read no card without the lab"
    assert out["phase"] == "bidding"


def test_the_demo_without_the_lab_says_it_is_not_installed(tmp_path: Path) -> None:
    run = _without_lab("from cli.main import main\n"
                       "raise SystemExit(main(['demo', '--hands', '1', '--no-web']))", tmp_path)
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "belote-table demo : la table virtuelle fait partie du labo" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("args", [["eval", "somewhere"], ["bench", "--frames", "1"]])
def test_the_lab_commands_without_the_lab_say_so(tmp_path: Path, args: list[str]) -> None:
    run = _without_lab("from cli.main import main\n"
                       f"raise SystemExit(main(['vision', *{args!r}]))", tmp_path)
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "belote-table vision : le labo (vision/lab) n'est pas installé ici" in run.stderr
    assert "Traceback" not in run.stderr


def test_the_pi_install_leaves_the_lab_out() -> None:
    run = subprocess.run(["bash", str(ROOT / "hardware" / "install.sh"), "--dry-run"],
                         capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    removed = next(line for line in out.splitlines() if line.startswith("+ rm -rf")
                   and "/opt/belote-table/app/vision/lab" in line)
    # Removed from the copy before pip installs it, and checked afterwards.
    assert out.index(removed) < out.index("constraints-pi")
    assert "vision.lab" in out[out.index("constraints-pi"):]
