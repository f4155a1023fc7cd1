"""Mutation campaign: does the grader catch the bugs nobody listed?

tests/mutants.toml lists classic bugs by hand. This script makes the bugs nobody thought of: it
mutates ``reference/engine.py`` one AST node at a time, inside the functions each catalog target
blanks (nested closures included), grades every mutant at the target that owns the mutated
function, and writes ``grader/campaign-report.md``: per target, how many mutants were killed (the
target fails), how many survived (it passes: the grader misses a real bug) and how many are
equivalent (they compute the same thing on every input the contract admits, so no test can kill
them: ``grader/campaign.toml`` lists them, one line of reasoning each). The goal: at least 95 % of
the non-equivalent mutants killed, for every target.

Why a small AST mutator of our own rather than mutmut 3 or cosmic-ray: both mutate a package that
a test runner imports and run that runner once per mutant (a fresh interpreter, pytest's start-up
and the torch oracle each time), they mutate whole modules rather than one catalog target's
functions, and they do not know that a mutant of ``Tensor.backward`` is graded at three targets.
Here each mutant is a file graded like a user's solution, by ``autograd_drill.grader.run.grade_file`` through a
warm fork runner (autograd_drill.grader.worker, with torch imported before it forks: 0.1-1.5 s a grading), so the
whole campaign runs in minutes on two cores.

The operators, each a single change at one AST node (the docstring, comments, annotations and
f-string messages are never mutated):

- arithmetic: ``+ <-> -``, ``* <-> /``, ``** -> *``, ``@ -> *``, ``// -> *``, ``a % n -> a``;
  augmented assignments ``+= -> =`` and ``+= -> -=``;
- comparisons: ``> <-> >=``, ``< <-> <=``, ``== <-> !=``, ``is <-> is not``, ``in <-> not in``;
  ``and <-> or``; a unary ``-`` or ``not`` dropped;
- constants: ``0 -> 1``, ``1 -> 0`` and ``2``, ``n -> n+1``, ``-1 -> 1`` and ``0``, ``-n -> n`` and
  ``-n+1`` (floats alike: ``0.0 -> 1.0``); ``True <-> False``;
- keywords: ``axis=X -> axis=0`` and ``axis=None``; ``keepdims=X -> True`` and ``False``;
- calls: two adjacent positional arguments swapped; ``return f(a, b)`` with one argument dropped,
  ``return x.f(...) -> return x`` and ``return f(x) -> return x``;
- statements: an expression, assignment or augmented assignment replaced by ``pass`` (anywhere but
  as the only statement of a function); ``while -> if``;
- early returns (``insert-return``, ``append-return``): a ``return`` inserted before any statement of
  any block (function bodies, nested ``_backward`` closures, ``if``/``for``/``while`` bodies; not
  before a ``return``) or at the end of a block that does not end the function (a loop's body: it
  returns after one pass): a bare ``return`` and, where the function returns a value, the fast
  paths ``return <first parameter>`` (``return grad``, ``return self``) and ``return <the name
  bound last>`` (``-<name>`` in the operator);
- names: a Load of a parameter or local (closures' included; never a module name or a builtin,
  nor the object of an attribute, a subscript or a call, nor a loop's iterable) replaced by ``0``
  and ``1``, and by ``None`` as a call's argument, a keyword's value, a returned value or an
  operand of a comparison (``name->0``);
- any call: one positional or keyword argument dropped (``call-drop-arg-i``, ``call-drop-kw-k``);
- copies made aliases: ``np.array(x, ...) -> np.asarray(x, ...)`` and ``-> x``; ``np.copy(x)`` and
  ``x.copy()`` ``-> x``; ``copy=True -> copy=False``.

The operators of the last four items run in a second pass over the symbol, after every node has had
the others: a later mutant whose text equals an earlier one's is left out, so no earlier id moves.
The report counts the mutants per target and per operator family.

A mutant's source is the reference with only the mutated node's text replaced (line numbers, in
messages, stay the reference's), and the symbol must parse to exactly the intended tree; a mutant
whose text equals another's, or the reference's, is left out. Each grading has 2 s a test; a
mutant killed only by that clock is graded again at the default limits (5 s a test), so a loaded
machine cannot pass for a hang. An id is ``symbol:line:column:operator``, the line counted from the
symbol's first statement after its docstring: editing a docstring, or another function, moves no
id of grader/campaign.toml.

Another pack's campaign (``--pack``, grader/campaign/subject.py) is the same on that pack: its
reference's catalog symbols mutated, each mutant graded by the pack's oracle tests (its Suite,
grader/suite.py, through a warm worker that has imported them), the report and the argued
equivalents in the pack's folder (``campaign-report.md``, ``campaign.toml``); the same goal.

    python -m autograd_drill.grader.campaign                     # every target; writes grader/campaign-report.md
    python -m autograd_drill.grader.campaign --target unbroadcast --limit 20
    python -m autograd_drill.grader.campaign --list              # the mutants, without grading
    python -m autograd_drill.grader.campaign --check             # exit 1 if a target is below the goal
    python -m autograd_drill.grader.campaign --pack layers --check --jobs 2   # packs/layers/.../campaign-report.md
    python -m autograd_drill.grader.campaign --pack packs/layers/autograd_drill_layers --target adam
"""
