module miniil

go 1.26.8
