module github.com/benchtui/benchtui

go 1.26

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)
