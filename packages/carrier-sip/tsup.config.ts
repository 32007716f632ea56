export { default } from "../../tsup.config.base.ts"
