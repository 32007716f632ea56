#!/usr/bin/env node
console.log("voice-agent")
