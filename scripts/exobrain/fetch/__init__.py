"""External skills from git: the checked source of a declaration, one cached partial clone
per repository, materialising a skill's tree, install records and swapping installs in."""
