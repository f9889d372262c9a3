"""What a sparse checkout leaves off the disk, read from git's objects instead: the view a
workspace asks (:mod:`.view`), the committed tree at ``HEAD`` (:mod:`.committed`), its units
worked out from git's listings (:mod:`.units`), and the cache of what was learnt about them
(:mod:`.treecache`). A command that needs only what is on the disk pays nothing for it."""
