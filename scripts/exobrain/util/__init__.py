"""Infrastructure with no knowledge of skills: atomic files, locking, staging folders, the git
layer, JSON in the file's own style, tree copies, archives and the dirhash content hash.

Nothing here imports the rest of the package, so every family can lean on it."""
