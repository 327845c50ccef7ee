package main

import _ "github.com/benchtui/benchtui/runners/spawn" // runner: spawn, runner: shutdown
