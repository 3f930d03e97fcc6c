import sys

from cluestudio.cli import main

sys.exit(main())
