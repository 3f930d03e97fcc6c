"""TSED, the AST similarity of OpenClassGen §5.2.3: 1 − TED(T1, T2) / max(|T1|, |T2|).

TED is the unit-cost tree edit distance (insert, delete, rename), computed with the
Zhang–Shasha algorithm, which gives the same optimum as APTED (the paper's choice, not a
dependency we have). Trees are Python :mod:`ast` trees; a node's label is its type plus
the identifier or constant it carries, so renaming a variable costs one edit.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field


@dataclass
class Tree:
    label: str
    children: list[Tree] = field(default_factory=list)

    def size(self) -> int:
        return 1 + sum(child.size() for child in self.children)


def _label(node: ast.AST) -> str:
    kind = type(node).__name__
    for attr in ("name", "id", "attr", "arg", "module"):
        value = getattr(node, attr, None)
        if isinstance(value, str):
            return f"{kind}:{value}"
    if isinstance(node, ast.Constant):
        return f"{kind}:{node.value!r}"[:80]
    return kind


def ast_tree(node: ast.AST) -> Tree:
    """Our :class:`Tree` of an AST; ``ctx`` nodes (Load/Store) are left out as noise."""
    children = [ast_tree(child) for child in ast.iter_child_nodes(node)
                if not isinstance(child, ast.expr_context)]
    return Tree(_label(node), children)


def _postorder(tree: Tree) -> tuple[list[str], list[int]]:
    """Labels in post-order and, for each node, the post-order index of its leftmost leaf."""
    labels: list[str] = []
    leftmost: list[int] = []

    def visit(node: Tree) -> int:
        first = -1
        for child in node.children:
            leaf = visit(child)
            if first < 0:
                first = leaf
        labels.append(node.label)
        index = len(labels) - 1
        leftmost.append(first if first >= 0 else index)
        return leftmost[index]

    visit(tree)
    return labels, leftmost


def _keyroots(leftmost: list[int]) -> list[int]:
    seen: dict[int, int] = {}
    for index, leaf in enumerate(leftmost):
        seen[leaf] = index  # the highest node with this leftmost leaf
    return sorted(seen.values())


def tree_edit_distance(a: Tree, b: Tree) -> int:
    """Zhang–Shasha unit-cost tree edit distance."""
    la, ll_a = _postorder(a)
    lb, ll_b = _postorder(b)
    n, m = len(la), len(lb)
    dist = [[0] * m for _ in range(n)]
    for i in _keyroots(ll_a):
        for j in _keyroots(ll_b):
            li, lj = ll_a[i], ll_b[j]
            rows, cols = i - li + 2, j - lj + 2
            fd = [[0] * cols for _ in range(rows)]
            for x in range(1, rows):
                fd[x][0] = fd[x - 1][0] + 1
            for y in range(1, cols):
                fd[0][y] = fd[0][y - 1] + 1
            for x in range(1, rows):
                ai = li + x - 1
                for y in range(1, cols):
                    bj = lj + y - 1
                    if ll_a[ai] == li and ll_b[bj] == lj:
                        rename = 0 if la[ai] == lb[bj] else 1
                        fd[x][y] = min(fd[x - 1][y] + 1, fd[x][y - 1] + 1,
                                       fd[x - 1][y - 1] + rename)
                        dist[ai][bj] = fd[x][y]
                    else:
                        px, py = ll_a[ai] - li, ll_b[bj] - lj
                        fd[x][y] = min(fd[x - 1][y] + 1, fd[x][y - 1] + 1,
                                       fd[px][py] + dist[ai][bj])
    return dist[n - 1][m - 1]


def tsed(reference_code: str, candidate_code: str) -> float:
    """TSED in [0, 1] of two Python sources (raises SyntaxError if one does not parse)."""
    t1, t2 = ast_tree(ast.parse(reference_code)), ast_tree(ast.parse(candidate_code))
    largest = max(t1.size(), t2.size())
    return max(0.0, 1.0 - tree_edit_distance(t1, t2) / largest)
