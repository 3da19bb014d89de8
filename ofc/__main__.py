from ofc.pipeline.cli import main

try:
    main()
finally:
    # CPython remembers a KeyboardInterrupt that ended code compiled from a string (dataclasses and namedtuple
    # build their methods so) even once it was caught, and under ``python -m`` it then ends the process by
    # SIGINT instead of with its exit status (130). Evaluating a string clears that record.
    exec("pass")
