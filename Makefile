# Shorthands for the npm scripts. npm runs every script with node_modules/.bin first on PATH, where `npm install`
# links the project's Node.js (package.json `optionalDependencies`), whatever Node the machine has.
# `make shell` opens a shell with that PATH.

.PHONY: install start test generate bench demo-data shell

install:
	npm install

start:
	npm start

test:
	npm test

generate:
	npm run generate

bench:
	npm run bench

demo-data:
	npm run demo-data -- --out ./data

shell:
	npm exec -c bash
