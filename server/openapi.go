package server

import (
	_ "embed"
	"net/http"
)

// openAPI is the server's OpenAPI 3.1 document; TestOpenAPIMatchesRoutes
// keeps it and the route table the same.
//
//go:embed openapi.json
var openAPI []byte

func serveOpenAPI(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "application/json")
	w.Write(openAPI)
	return nil
}
