import sys

if __package__ != "autograd_drill":  # this folder run by its name from a clone's root: a second copy of the package
    sys.exit("drills/ is the folder of the package autograd_drill: run python -m autograd_drill (or drill)")

from autograd_drill.entry import main

main()
