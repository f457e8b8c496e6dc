"""One module per command of the command line, each with a ``run(args, out)``.

``lean_memory.cli`` builds the parser and imports a command's module only when that command
runs (its dispatch table, ``COMMANDS``); so this package imports nothing itself.
"""
