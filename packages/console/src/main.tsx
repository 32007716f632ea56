/**
 * The console's entry: mounts the app into the page the daemon serves at /console/.
 */
import { render } from "preact"
import { App } from "./App.tsx"
import "./styles.css"

render(<App />, document.getElementById("app")!)
