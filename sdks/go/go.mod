module github.com/aar-project/aar/sdks/go

go 1.19
