# Thin doors into the npm scripts (the same code). ARGS passes options: make metrics ARGS="--routes 1,10".
.PHONY: generate metrics report compare test lint format clean

generate:
	npm run generate -- $(ARGS)

metrics:
	npm run metrics -- $(ARGS)

report:
	npm run report -- $(or $(DIR),results/latest)

compare:
	npm run compare -- $(A) $(B)

test:
	npm test

lint:
	npm run lint

format:
	npm run format

clean:
	npm run clean
