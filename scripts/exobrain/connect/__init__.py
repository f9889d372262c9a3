"""connect-agent: choosing the connection, planning links and generated files per agent, and
applying the plan; git hooks and scope hooks that keep a clone's agents in step.

It owns only what its plan creates (links into the repository, generated files, install
folders); everything else is reported and left alone."""
