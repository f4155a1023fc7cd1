"""The bodies of the ``drill`` commands: each takes the Terminal (its consoles, its clock) and the
parsed arguments, calls the drill loop and the store, and prints a view. drills/cli.py parses the
command line and calls them; a refusal is a DrillError, which the CLI prints as one line.
"""
