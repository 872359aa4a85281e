module oracle

go 1.19
