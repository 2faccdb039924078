from soulscan.cli import main

raise SystemExit(main())
