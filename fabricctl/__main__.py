import sys

from fabricctl.cli import main

sys.exit(main())
