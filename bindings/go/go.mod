module example.invalid/llmlat/bindings/go

go 1.19
