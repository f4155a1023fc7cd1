from drills.entry import main

main()
