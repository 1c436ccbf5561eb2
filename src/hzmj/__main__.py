"""``python -m hzmj``: the same command line as the ``hzmj`` script."""

from hzmj.cli import main

if __name__ == "__main__":
    main()
