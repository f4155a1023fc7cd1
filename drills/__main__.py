from autograd_drill.entry import main

main()
