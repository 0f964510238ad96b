# Every target runs with the project's Node.js (.node-version), which scripts/node.sh installs where the machine's
# is older. `make shell` opens a shell with it on PATH.
WITH_NODE := scripts/node.sh

.PHONY: install start test generate bench demo-data shell

install:
	$(WITH_NODE) npm install

start:
	$(WITH_NODE) npm start

test:
	$(WITH_NODE) npm test

generate:
	$(WITH_NODE) npm run generate

bench:
	$(WITH_NODE) npm run bench

demo-data:
	$(WITH_NODE) npm run demo-data -- --out ./data

shell:
	$(WITH_NODE) bash
