"""``exobrain site``: a static catalog of the skills, for people to browse (issue 20).

:mod:`gather` reads the repository with the toolkit's own readers into a plain dict
(:mod:`data`); :mod:`build` writes the pages (:mod:`catalog_page`, :mod:`skill_page`,
:mod:`scope_page`), the search index (:mod:`searchindex`) and the assets (``assets/``).
"""
