/**
 * The organization's agent definitions, newest first in pages, and a way to create one.
 */
import { run } from "../api/Client.ts"
import { dateTime } from "../Format.ts"
import { href } from "../Router.ts"
import { Pager, usePages } from "../ui/Pager.tsx"
import { useResource } from "../ui/Resource.ts"
import { Empty, Show } from "../ui/States.tsx"

export const Agents = () => {
  const pages = usePages()
  const after = pages.after
  const page = useResource(
    () => run((client) => client.agents.list({ query: { limit: "50", ...(after === undefined ? {} : { after }) } })),
    [after]
  )
  return (
    <section aria-labelledby="agents-title">
      <div class="spread">
        <h1 id="agents-title">Agents</h1>
        <a class="button primary" href={href(["agents", "new"])}>New agent</a>
      </div>
      <Show resource={page} loading="Loading agents…">
        {({ agents, next_cursor }) => (
          <>
            {agents.length === 0
              ? (
                <Empty>
                  No agent definitions yet: calls are taken by the engine's default agent.{" "}
                  <a href={href(["agents", "new"])}>Define one</a>.
                </Empty>
              )
              : (
                <div class="table-wrap">
                  <table class="agents">
                    <thead>
                      <tr>
                        <th>Name</th>
                        <th>Objective</th>
                        <th>Items</th>
                        <th>Updated</th>
                      </tr>
                    </thead>
                    <tbody>
                      {agents.map((agent) => (
                        <tr key={agent.id}>
                          <td>
                            <a href={href(["agents", agent.id])}>{agent.name}</a>
                          </td>
                          <td>{agent.task.objective}</td>
                          <td class="num">{agent.task.action_items.length}</td>
                          <td>{dateTime(agent.updated_at)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            <Pager label="Agent pages" pages={pages} nextCursor={next_cursor} />
          </>
        )}
      </Show>
    </section>
  )
}
