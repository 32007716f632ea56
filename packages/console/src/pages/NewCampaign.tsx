/**
 * Creating a campaign; on success the campaign's page opens, with the API's warning if it gave one.
 */
import * as Flash from "../Flash.ts"
import { href, navigate } from "../Router.ts"
import { CampaignForm } from "./CampaignForm.tsx"

export const NewCampaign = () => (
  <section aria-labelledby="new-campaign-title">
    <p>
      <a href={href(["campaigns"])}>← Campaigns</a>
    </p>
    <h1 id="new-campaign-title">New campaign</h1>
    <div class="card">
      <CampaignForm
        onSaved={(campaign) => {
          Flash.set(
            campaign.warning === undefined
              ? { kind: "success", text: `Campaign ${campaign.name} created` }
              : { kind: "warning", text: campaign.warning }
          )
          navigate(["campaigns", campaign.campaign_code])
        }}
      />
    </div>
  </section>
)
