from isodyn.cli import main

main()
