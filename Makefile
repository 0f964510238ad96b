.PHONY: install start test generate bench demo-data

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
