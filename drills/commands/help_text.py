"""What ``drill -h`` shows of the app, kept for drills/commands/quick_help.py (written by
``python -m tests.test_quick_help`` from drills/cli.py: do not edit; tests/test_quick_help.py
checks it is the app's)."""

APP_HELP = "autograd-drill: re-implement a tensor autograd engine from memory, against the clock."
OPTIONS = (
    ("--version", "-V", "Print the version and exit."),
    ("--install-completion", "", "Install completion for the current shell."),
    ("--show-completion", "", "Show completion for the current shell, to copy it or customize the installation."),
    ("--help", "-h", "Show this message and exit."),
)
COMMANDS = (
    (
        "Drilling",
        (
            ("start", "Write the stub of TARGET for its rung of the ladder and start the timer. TARGET may be 'full'."),
            ("full", "Every core target blank at once, 45:00 to beat, one split per target."),
            ("check", "Grade the attempt in progress once (drill watch does it on every save)."),
            (
                "watch",
                "Re-grade on every save, with a live timer per target; in a terminal, keys: h hint, p pause/resume, r grade, d diff, n next drill (once the attempt ended), q quit.",
            ),
            ("status", "The attempt in progress: its clock, and each target's state."),
            ("pause", "Stop the clock of the attempt in progress."),
            ("resume", "Restart the clock of a paused attempt."),
            ("abandon", "End the attempt in progress without a verdict; your file is archived, never deleted."),
            ("give-up", "End the attempt as not finished; then drill diff shows the reference."),
            ("hint", "Reveal one more hint for a target (the attempt counts as assisted)."),
            ("diff", "Your code and the reference side by side, symbol by symbol."),
            (
                "restore",
                "Bring back a deleted or overwritten solution file: a graded save (the latest, or --save N of --list) of the attempt in progress, or of your latest graded attempt at TARGET. A file in the way is archived in .archive/, never lost.",
            ),
        ),
    ),
    (
        "Practice",
        (
            (
                "list",
                "The catalog: each target, what you write, its target time, your best and last times, and when it is due.",
            ),
            ("next", "The target to drill now, chosen by spaced repetition (FSRS) from your history."),
            (
                "ladder",
                "The learning ladder: each target's rung (copy, cloze, recall), each rung's target time and why, and what moves it up or down.",
            ),
            (
                "review",
                "The review card of TARGET (or 'full'): the key formula, the classic bugs, what an interviewer asks next.",
            ),
            (
                "show",
                "The reference code of TARGET's functions, to read before you first drill it. It marks nothing, unless an attempt at TARGET is in progress: then that attempt is marked assisted.",
            ),
            ("stats", "Per target: attempts, best, median of the last five, trend, share under the target time."),
            (
                "chart",
                "A chart of your times: each attempt over the days, the target time as a line; and your streak of practice days.",
            ),
            (
                "interview",
                "A mock interview: a coding task (then its follow-up, if time allows) with nudges, then questions, self-checked; a Markdown transcript.",
            ),
        ),
    ),
    ("Grading", (("grade", "Grade any engine file against torch.autograd, outside a drill."),)),
    (
        "Data",
        (
            (
                "export",
                "Write your whole history (every finished attempt, its splits and hints) as CSV or JSON; drill import restores it.",
            ),
            (
                "import",
                "Restore attempts (and, from JSON, interviews) written by drill export; those already in your history are skipped.",
            ),
            ("where", "Where things live: the workspace, the history, the interviews, the recording, the data folder."),
            (
                "packs",
                "The installed drill packs: each one's title, version, targets, full drill's time and where it is.",
            ),
        ),
    ),
)
