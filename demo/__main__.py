from demo.server import main

main()
