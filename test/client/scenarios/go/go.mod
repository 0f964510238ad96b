module example.com/desk/scenario

go 1.23

require example.com/desk/deskclient v0.0.0

require gopkg.in/validator.v2 v2.0.1 // indirect

// the client OpenAPI Generator wrote beside this folder (test/client/openapi-generator.test.ts lays them out)
replace example.com/desk/deskclient => ../../clients/go
