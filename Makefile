# Thin doors into the npm scripts (the same code).
.PHONY: generate metrics report compare test clean

generate:
	npm run generate

metrics:
	npm run metrics

report:
	npm run report -- $(or $(DIR),results/latest)

compare:
	npm run compare -- $(A) $(B)

test:
	npm test

clean:
	npm run clean
