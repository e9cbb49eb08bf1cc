module miniil

go 1.26.8

require (
	github.com/twitchyliquid64/golang-asm v0.15.1
	golang.org/x/arch v0.32.0
)

require golang.org/x/sys v0.50.0
