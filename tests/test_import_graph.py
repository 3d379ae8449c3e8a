"""The project's import graph holds its layout (issue 52): data flows one
way, kernel -> image -> run -> result, and each stage imports only those
below it, so a change to a stage reaches no stage beneath.

The graph is read from the source with ast (no module is imported):
every .py file of the stages, docs/ and run.py, with every import in it,
at module level or inside a function (a late import is still a tie).
Three rules, each with the edge or cycle that breaks it named:
  no cycle: no two modules import each other, directly or around a loop;
  layers: a module imports only its own stage and those below it, in the
      order the stages really have (workloads/ is below buildroot/: an
      image carries the workloads' programs); the commands layer
      (commands/, run.py, and docs/, whose generator is a command too)
      may import every stage, and no stage imports it;
  analysis/ imports nothing of configs/: it reads the records the run
      stage wrote, never its code (what both read lives in lab/).
And small modules: no Python module outside tests over MAX_LINES lines.
And one address per name (issue 67 item 9): a name is imported from the
module that defines it, in the project and its tests alike, never from
one that only imports it (no re-exports: configs/gem5/spec.py passed on
24 names of three modules and callers used both addresses). And the
backends' packages, configs/qemu/ and configs/gem5/, reach nothing of
each other, directly or through another module: what both need lives
below them (configs/smap_models.py, configs/point.py's Twin), and a
gem5 point's QEMU twin is made by the QEMU backend (configs/backends.py).
"""

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STAGES = ("lab", "kernels", "workloads", "buildroot", "configs", "analysis")  # lowest first
TOP = ("commands", "docs", "run")  # may import every stage; nothing imports them
MAX_LINES = 500


def _sources() -> dict:
    """module name -> its file, for every project module outside tests."""
    files = [p for top in STAGES + TOP[:-1] for p in (REPO / top).rglob("*.py")]
    files.append(REPO / "run.py")
    out = {}
    for path in files:
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imported(name: str, path: Path, node, modules) -> set:
    """The project modules one import statement names (a name imported
    from a package that is a module of its own counts as that module)."""
    if isinstance(node, ast.Import):
        wanted = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:  # relative: from the importing module's package up
            package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
            package = package[:len(package) - node.level + 1]
            base = ".".join(package + ([base] if base else []))
        wanted = [base] + [f"{base}.{a.name}" for a in node.names]
    out = set()
    for target in wanted:
        while target and target not in modules:  # the longest project module it names
            target = target.rpartition(".")[0]
        if target and target != name:
            out.add(target)
    return out


def import_graph() -> dict:
    """module -> the project modules it imports, anywhere in its text."""
    modules = _sources()
    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        graph[name] = set().union(*[_imported(name, path, node, modules)
                                    for node in ast.walk(tree)
                                    if isinstance(node, (ast.Import, ast.ImportFrom))])
    return graph


def cycles(graph: dict) -> list:
    """The strongly connected components of more than one module (Tarjan's
    algorithm, iterative): each is a set of modules that import each
    other around a loop."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _stage(module: str) -> str:
    return module.split(".")[0]


def _rank(module: str) -> int:
    stage = _stage(module)
    return STAGES.index(stage) if stage in STAGES else len(STAGES)


GRAPH = import_graph()


def test_the_graph_sees_the_imports_it_must():
    # The reader itself can fail: these edges exist today, in both forms
    # (a module-level import, and one inside a function).
    assert "configs.backends" in GRAPH["configs.sweep"]
    assert "analysis.store" in GRAPH["commands.run"]
    assert "analysis.accounting" in GRAPH["docs.figures"]  # inside x86_core_figure
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_itself_back():
    assert cycles(GRAPH) == [], "import cycles (each a set of modules that import each other)"


def test_analysis_imports_nothing_of_configs():
    bad = sorted(f"{m} -> {d}" for m, deps in GRAPH.items() if _stage(m) == "analysis"
                 for d in deps if _stage(d) == "configs")
    assert bad == []


def test_each_stage_imports_only_the_stages_below_it():
    bad = sorted(f"{m} -> {d}" for m, deps in GRAPH.items() if _stage(m) in STAGES
                 for d in deps if _rank(d) > _rank(m))
    assert bad == [], f"stages in order, lowest first: {' < '.join(STAGES)} < {', '.join(TOP)}"


def test_no_module_is_over_the_line_limit():
    long = sorted(f"{p.relative_to(REPO)} ({n} lines)" for p in _sources().values()
                  if (n := len(p.read_text().splitlines())) > MAX_LINES)
    assert long == []


# -- one address per name ---------------------------------------------------------

def _callers() -> dict:
    """module name -> file, for the project's modules and its tests."""
    out = dict(_sources())
    out.update({f"tests.{p.stem}": p for p in (REPO / "tests").rglob("*.py")})
    return out


def _from(name: str, path: Path, node) -> str:
    """An ImportFrom's module, absolute."""
    if not node.level:
        return node.module or ""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    package = package[:len(package) - node.level + 1]
    return ".".join(package + ([node.module] if node.module else []))


def _passed_on(modules: dict) -> dict:
    """module -> the names its top level binds by importing them from
    another project module: what a caller could take from it that it
    does not define."""
    out = {}
    for name, path in modules.items():
        out[name] = set()
        for node in ast.parse(path.read_text(), str(path)).body:
            if isinstance(node, ast.ImportFrom) and _from(name, path, node).split(".")[0] in \
                    STAGES + TOP:
                out[name] |= {a.asname or a.name for a in node.names}
            elif isinstance(node, ast.Import):
                out[name] |= {a.asname for a in node.names if a.asname and a.name in modules}
    return out


def reexported_uses() -> list:
    """"caller:line: module.name" for each name a caller takes from a
    project module that only imports it, by a from-import or as an
    attribute of the module imported whole."""
    modules = _sources()
    passed_on = _passed_on(modules)
    found = set()
    for caller, path in sorted(_callers().items()):
        tree = ast.parse(path.read_text(), str(path))
        aliases = {}  # a local name -> the project module bound to it
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                aliases.update({a.asname: a.name for a in node.names
                                if a.asname and a.name in modules})
            elif isinstance(node, ast.ImportFrom):
                base = _from(caller, path, node)
                for a in node.names:
                    if f"{base}.{a.name}" in modules:
                        aliases[a.asname or a.name] = f"{base}.{a.name}"
                    elif a.name in passed_on.get(base, ()):
                        found.add(f"{caller}:{node.lineno}: {base}.{a.name}")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.attr in passed_on.get(aliases.get(node.value.id), ())):
                found.add(f"{caller}:{node.lineno}: {aliases[node.value.id]}.{node.attr}")
    return sorted(found)




def test_each_name_is_imported_from_the_module_that_defines_it():
    # Shown on a module made to pass a name on, read like the others.
    tree = {"lab.a": "X = 1\n", "lab.b": "from lab.a import X\nY = X\n"}
    assert _passed_on({m: _Text(t) for m, t in tree.items()}) == {"lab.a": set(),
                                                                   "lab.b": {"X"}}
    # None left: sampling.py took load_cpu from lab/cpu_presets.py last
    # (its FLOW_VERSION fingerprint re-pinned on the smoke set's SimPoint run).
    assert reexported_uses() == []


class _Text:
    """A module's text where _passed_on reads a file."""
    name = "m.py"

    def __init__(self, text: str):
        self.text = text

    def read_text(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.name


def _chain(graph: dict, start: str, wanted) -> list:
    """The shortest chain of imports from `start` to a module `wanted`
    accepts ([start, ..., it]), or [] where none reaches one."""
    came, work = {start: None}, [start]
    while work:
        node = work.pop(0)
        for d in sorted(graph.get(node, ())):
            if d in came:
                continue
            came[d] = node
            if wanted(d):
                chain = [d]
                while came[chain[-1]] is not None:
                    chain.append(came[chain[-1]])
                return chain[::-1]
            work.append(d)
    return []


def test_the_backends_reach_nothing_of_each_other():
    assert _chain({"a.x": {"b"}, "b": {"c.y"}}, "a.x", lambda d: d.startswith("c")) == \
        ["a.x", "b", "c.y"]
    packages = ("configs.qemu", "configs.gem5")
    bad = []
    for m in sorted(GRAPH):
        mine = [p for p in packages if m == p or m.startswith(p + ".")]
        if not mine:
            continue
        other = next(p for p in packages if p != mine[0])
        chain = _chain(GRAPH, m, lambda d: d == other or d.startswith(other + "."))
        if chain:
            bad.append(" -> ".join(chain))
    assert bad == []
