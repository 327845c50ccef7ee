package main

import _ "github.com/benchtui/benchtui/runners/httpload" // runner: http
