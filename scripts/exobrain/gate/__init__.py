"""The checks a change must pass before it reaches everyone: skills-validate over the whole
repository, the authoring review of new shared skills, and crons.json scheduled jobs."""
