# Thin doors into the npm scripts (the same code). ARGS passes options: make metrics ARGS="--routes 1,10".
# `exec` (here and in the npm scripts): the launcher waits for the runner itself, so an interrupt ends make and npm
# only after the report is written (a shell in between would die at once and let them return first).
.PHONY: generate metrics report compare test lint format clean

generate:
	exec npm run generate -- $(ARGS)

metrics:
	exec npm run metrics -- $(ARGS)

report:
	exec npm run report -- $(or $(DIR),results/latest)

compare:
	exec npm run compare -- $(A) $(B)

test:
	npm test

lint:
	exec npm run lint

format:
	exec npm run format

clean:
	exec npm run clean
