/**
 * The console's shell: the navigation, the API key prompt, and the page of the current route.
 */
import type { ComponentChildren } from "preact"
import { run } from "./api/Client.ts"
import * as Session from "./api/Session.ts"
import { Admin } from "./pages/Admin.tsx"
import { AgentPage } from "./pages/AgentPage.tsx"
import { Agents } from "./pages/Agents.tsx"
import { CallPage } from "./pages/CallPage.tsx"
import { Calls } from "./pages/Calls.tsx"
import { CampaignPage } from "./pages/CampaignPage.tsx"
import { Campaigns } from "./pages/Campaigns.tsx"
import { Live } from "./pages/Live.tsx"
import { Messages } from "./pages/Messages.tsx"
import { NewCampaign } from "./pages/NewCampaign.tsx"
import { href, useRoute } from "./Router.ts"
import type { Route } from "./Router.ts"
import { SignIn } from "./ui/SignIn.tsx"

const sections = [
  ["campaigns", "Campaigns"],
  ["calls", "Calls"],
  ["live", "Live"],
  ["agents", "Agents"],
  ["messages", "Messages"],
  ["admin", "Admin"]
] as const

const page = (route: Route): ComponentChildren => {
  const [section = "campaigns", id, sub] = route.path
  switch (section) {
    case "campaigns":
      if (id === "new") return <NewCampaign />
      return id === undefined ? <Campaigns /> : <CampaignPage code={id} />
    case "calls":
      return id === undefined ? <Calls query={route.query} /> : <CallPage callId={id} />
    case "live":
      return <Live callId={id} />
    case "agents":
      return id === undefined ? <Agents /> : <AgentPage agentId={id} />
    case "messages":
      return <Messages query={route.query} />
    case "admin":
      return <Admin orgId={id} tab={sub} />
    default:
      return (
        <p class="state empty">
          There is no page here. <a href={href(["campaigns"])}>Go to the campaigns</a>.
        </p>
      )
  }
}

export const App = () => {
  const route = useRoute()
  const apiKey = Session.useCredential("apiKey")
  const section = route.path[0] ?? "campaigns"
  // The admin pages need only the admin token: an operator may hold that without an API key.
  const needsKey = apiKey === null && section !== "admin"
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <a class="brand" href={href(["campaigns"])}>voice-agent</a>
        <nav aria-label="Sections">
          <ul>
            {sections.map(([id, label]) => (
              <li key={id}>
                <a href={href([id])} aria-current={section === id ? "page" : undefined}>{label}</a>
              </li>
            ))}
          </ul>
        </nav>
        {apiKey !== null && (
          <button type="button" class="link signout" onClick={() => Session.forget("apiKey")}>Sign out</button>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {needsKey
          ? <SignIn credential="apiKey" check={() => run((client) => client.messages.phoneNumbers())} />
          : page(route)}
      </main>
    </>
  )
}
