CREATE TABLE public.agents (
    id text NOT NULL,
    organization_id uuid NOT NULL,
    name text NOT NULL,
    persona jsonb NOT NULL,
    task jsonb NOT NULL,
    instructions text,
    language text,
    llm text,
    stt text,
    tts text,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT agents_id_check CHECK ((id ~ '^agt-[0-9a-f]{20}$'::text))
);

CREATE TABLE public.api_keys (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid NOT NULL,
    key_hash text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_at timestamp with time zone
);

CREATE TABLE public.call_events (
    call_id text NOT NULL,
    kind text NOT NULL,
    at timestamp with time zone NOT NULL,
    data jsonb DEFAULT '{}'::jsonb NOT NULL,
    CONSTRAINT call_events_kind_check CHECK ((kind = ANY (ARRAY['Ringing'::text, 'Answered'::text, 'Ended'::text, 'AgentEnded'::text])))
);

CREATE TABLE public.campaigns (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    code text NOT NULL,
    organization_id uuid NOT NULL,
    name text NOT NULL,
    origin_phone_numbers text[] NOT NULL,
    start_date date NOT NULL,
    end_date date,
    calling_windows jsonb NOT NULL,
    max_attempts integer NOT NULL,
    retry_delay_s integer NOT NULL,
    max_concurrency integer NOT NULL,
    timezone text NOT NULL,
    description text,
    enabled boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    dials bigint DEFAULT 0 NOT NULL,
    agent_id text,
    CONSTRAINT campaigns_max_attempts_check CHECK ((max_attempts >= 1)),
    CONSTRAINT campaigns_max_concurrency_check CHECK ((max_concurrency >= 1)),
    CONSTRAINT campaigns_retry_delay_s_check CHECK ((retry_delay_s >= 0))
);

CREATE TABLE public.contacts (
    id bigint NOT NULL,
    campaign_id uuid NOT NULL,
    organization_id uuid NOT NULL,
    phone_number text NOT NULL,
    status text NOT NULL,
    data jsonb DEFAULT '{}'::jsonb NOT NULL,
    outreach_modalities text[] DEFAULT '{}'::text[] NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone,
    last_attempted_at timestamp with time zone,
    dialing_worker text,
    dialing_lease_expires_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    dialing_conversation_id uuid,
    CONSTRAINT contacts_check CHECK (((status <> 'TRYING'::text) OR (next_attempt_at IS NOT NULL))),
    CONSTRAINT contacts_conversation_under_lease CHECK (((dialing_conversation_id IS NULL) OR (dialing_lease_expires_at IS NOT NULL))),
    CONSTRAINT contacts_lease_whole CHECK (((dialing_worker IS NULL) = (dialing_lease_expires_at IS NULL))),
    CONSTRAINT contacts_status_check CHECK ((status = ANY (ARRAY['TRYING'::text, 'COMPLETED'::text, 'PARTIALLY_COMPLETED'::text, 'FAILED'::text])))
);

ALTER TABLE public.contacts ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.contacts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.conversation_fields (
    conversation_id uuid NOT NULL,
    key text NOT NULL,
    value jsonb NOT NULL,
    recorded_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.conversations (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    call_id text NOT NULL,
    organization_id uuid NOT NULL,
    campaign_id uuid,
    contact_id bigint,
    direction text NOT NULL,
    from_number text NOT NULL,
    to_number text NOT NULL,
    started_at timestamp with time zone NOT NULL,
    answered_at timestamp with time zone,
    ended_at timestamp with time zone,
    duration_sec integer,
    termination_reason text,
    stream_id uuid,
    carrier_call_id text,
    carrier_duration_sec integer,
    media_daemon_id text,
    CONSTRAINT conversations_direction_check CHECK ((direction = ANY (ARRAY['inbound'::text, 'outbound'::text])))
);

CREATE TABLE public.daemons (
    id text NOT NULL,
    internal_url text NOT NULL,
    started_at timestamp with time zone NOT NULL,
    heard_at timestamp with time zone NOT NULL
);

CREATE TABLE public.dnc_entries (
    organization_id uuid NOT NULL,
    phone_number text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.effect_sql_migrations (
    migration_id integer NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    name text NOT NULL
);

CREATE TABLE public.listen_tickets (
    ticket_hash text NOT NULL,
    call_id text NOT NULL,
    expires_at timestamp with time zone NOT NULL
);

CREATE TABLE public.messages (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid NOT NULL,
    direction text NOT NULL,
    modality text NOT NULL,
    from_number text NOT NULL,
    to_number text NOT NULL,
    content text NOT NULL,
    received_at timestamp with time zone NOT NULL,
    status text NOT NULL,
    carrier_message_id text,
    CONSTRAINT messages_direction_check CHECK ((direction = ANY (ARRAY['inbound'::text, 'outbound'::text])))
);

CREATE TABLE public.organizations (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    name text NOT NULL,
    outbound_dialing_enabled boolean NOT NULL,
    sms_registered boolean NOT NULL,
    billing_issue boolean NOT NULL,
    max_concurrency integer NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT organizations_max_concurrency_check CHECK ((max_concurrency >= 1))
);

CREATE TABLE public.phone_numbers (
    phone_number text NOT NULL,
    organization_id uuid NOT NULL,
    sms_enabled boolean NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    agent_id text
);

CREATE TABLE public.recording_chunks (
    call_id text NOT NULL,
    channel text NOT NULL,
    first_sample bigint NOT NULL,
    samples bytea NOT NULL,
    CONSTRAINT recording_chunks_first_sample_check CHECK ((first_sample >= 0)),
    CONSTRAINT recording_chunks_samples_check CHECK (((octet_length(samples) > 0) AND ((octet_length(samples) % 2) = 0)))
);

CREATE TABLE public.recordings (
    call_id text NOT NULL,
    channel text NOT NULL,
    final_samples bigint,
    CONSTRAINT recordings_channel_check CHECK ((channel = ANY (ARRAY['agent'::text, 'remote'::text]))),
    CONSTRAINT recordings_final_samples_check CHECK ((final_samples >= 0))
);

CREATE TABLE public.server_secrets (
    name text NOT NULL,
    value bytea NOT NULL,
    CONSTRAINT server_secrets_value_check CHECK ((octet_length(value) >= 32))
);

CREATE TABLE public.transcript_turns (
    conversation_id uuid NOT NULL,
    seq integer NOT NULL,
    speaker text NOT NULL,
    text text NOT NULL,
    offset_ms integer NOT NULL,
    CONSTRAINT transcript_turns_speaker_check CHECK ((speaker = ANY (ARRAY['HUMAN'::text, 'AGENT'::text])))
);

CREATE TABLE public.turn_latencies (
    conversation_id uuid NOT NULL,
    seq integer NOT NULL,
    user_stopped_ms integer NOT NULL,
    agent_started_ms integer NOT NULL,
    stt_ms integer,
    llm_first_token_ms integer,
    tts_first_byte_ms integer,
    engine_ms integer,
    campaign_id uuid,
    CONSTRAINT turn_latencies_agent_started_ms_check CHECK ((agent_started_ms >= 0)),
    CONSTRAINT turn_latencies_engine_ms_check CHECK ((engine_ms >= 0)),
    CONSTRAINT turn_latencies_llm_first_token_ms_check CHECK ((llm_first_token_ms >= 0)),
    CONSTRAINT turn_latencies_stt_ms_check CHECK ((stt_ms >= 0)),
    CONSTRAINT turn_latencies_tts_first_byte_ms_check CHECK ((tts_first_byte_ms >= 0)),
    CONSTRAINT turn_latencies_user_stopped_ms_check CHECK ((user_stopped_ms >= 0))
);

CREATE TABLE public.webhook_attempts (
    delivery_id bigint NOT NULL,
    attempt integer NOT NULL,
    attempted_at timestamp with time zone NOT NULL,
    duration_ms integer,
    response_status integer,
    error_type text,
    error text,
    CONSTRAINT webhook_attempts_attempt_check CHECK ((attempt >= 1)),
    CONSTRAINT webhook_attempts_check CHECK (((error_type IS NULL) = (error IS NULL))),
    CONSTRAINT webhook_attempts_check1 CHECK (((duration_ms IS NULL) = (NOT (error_type IS DISTINCT FROM 'lapsed'::text)))),
    CONSTRAINT webhook_attempts_duration_ms_check CHECK ((duration_ms >= 0)),
    CONSTRAINT webhook_attempts_error_type_check CHECK ((error_type = ANY (ARRAY['http_status'::text, 'timeout'::text, 'dns'::text, 'connection_refused'::text, 'connection_closed'::text, 'tls'::text, 'network'::text, 'lapsed'::text, 'other'::text])))
);

CREATE TABLE public.webhook_deliveries (
    id bigint NOT NULL,
    endpoint_id uuid NOT NULL,
    event_id text NOT NULL,
    status text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone,
    last_attempt_at timestamp with time zone,
    last_response_status integer,
    last_error text,
    delivered_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    attempt_open boolean DEFAULT false NOT NULL,
    CONSTRAINT webhook_deliveries_attempts_check CHECK ((attempts >= 0)),
    CONSTRAINT webhook_deliveries_check CHECK (((status = 'pending'::text) = (next_attempt_at IS NOT NULL))),
    CONSTRAINT webhook_deliveries_check1 CHECK (((status = 'delivered'::text) = (delivered_at IS NOT NULL))),
    CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text])))
);

ALTER TABLE public.webhook_deliveries ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.webhook_deliveries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.webhook_endpoints (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid NOT NULL,
    url text NOT NULL,
    events text[],
    secret bytea NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT webhook_endpoints_events_check CHECK (((events IS NULL) OR ((cardinality(events) > 0) AND (events <@ ARRAY['call.started'::text, 'call.ended'::text, 'contact.status_changed'::text, 'message.received'::text])))),
    CONSTRAINT webhook_endpoints_secret_check CHECK (((octet_length(secret) >= 24) AND (octet_length(secret) <= 64)))
);

CREATE TABLE public.webhook_events (
    id text NOT NULL,
    organization_id uuid NOT NULL,
    type text NOT NULL,
    payload jsonb NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT webhook_events_type_check CHECK ((type = ANY (ARRAY['call.started'::text, 'call.ended'::text, 'contact.status_changed'::text, 'message.received'::text])))
);

ALTER TABLE ONLY public.agents
    ADD CONSTRAINT agents_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash);

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.call_events
    ADD CONSTRAINT call_events_pkey PRIMARY KEY (call_id, kind);

ALTER TABLE ONLY public.campaigns
    ADD CONSTRAINT campaigns_code_key UNIQUE (code);

ALTER TABLE ONLY public.campaigns
    ADD CONSTRAINT campaigns_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.contacts
    ADD CONSTRAINT contacts_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.conversation_fields
    ADD CONSTRAINT conversation_fields_pkey PRIMARY KEY (conversation_id, key);

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_call_id_key UNIQUE (call_id);

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.daemons
    ADD CONSTRAINT daemons_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.dnc_entries
    ADD CONSTRAINT dnc_entries_pkey PRIMARY KEY (organization_id, phone_number);

ALTER TABLE ONLY public.effect_sql_migrations
    ADD CONSTRAINT effect_sql_migrations_pkey PRIMARY KEY (migration_id);

ALTER TABLE ONLY public.listen_tickets
    ADD CONSTRAINT listen_tickets_pkey PRIMARY KEY (ticket_hash);

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT messages_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.organizations
    ADD CONSTRAINT organizations_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.phone_numbers
    ADD CONSTRAINT phone_numbers_pkey PRIMARY KEY (phone_number);

ALTER TABLE ONLY public.recording_chunks
    ADD CONSTRAINT recording_chunks_pkey PRIMARY KEY (call_id, channel, first_sample);

ALTER TABLE ONLY public.recordings
    ADD CONSTRAINT recordings_pkey PRIMARY KEY (call_id, channel);

ALTER TABLE ONLY public.server_secrets
    ADD CONSTRAINT server_secrets_pkey PRIMARY KEY (name);

ALTER TABLE ONLY public.transcript_turns
    ADD CONSTRAINT transcript_turns_pkey PRIMARY KEY (conversation_id, seq);

ALTER TABLE ONLY public.turn_latencies
    ADD CONSTRAINT turn_latencies_pkey PRIMARY KEY (conversation_id, seq);

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_pkey PRIMARY KEY (delivery_id, attempt);

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_event_endpoint_key UNIQUE (event_id, endpoint_id);

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.webhook_events
    ADD CONSTRAINT webhook_events_pkey PRIMARY KEY (id);

CREATE INDEX agents_live_by_organization ON public.agents USING btree (organization_id, created_at DESC, id DESC) WHERE (deleted_at IS NULL);

CREATE UNIQUE INDEX agents_live_name_unique ON public.agents USING btree (organization_id, name) WHERE (deleted_at IS NULL);

CREATE INDEX api_keys_by_organization ON public.api_keys USING btree (organization_id, created_at, id);

CREATE INDEX campaigns_live_by_agent ON public.campaigns USING btree (agent_id) WHERE ((agent_id IS NOT NULL) AND (deleted_at IS NULL));

CREATE INDEX campaigns_live_by_organization ON public.campaigns USING btree (organization_id, created_at) WHERE (deleted_at IS NULL);

CREATE UNIQUE INDEX campaigns_live_name_unique ON public.campaigns USING btree (organization_id, name) WHERE (deleted_at IS NULL);

CREATE INDEX contacts_by_campaign ON public.contacts USING btree (campaign_id, id DESC);

CREATE INDEX contacts_by_campaign_number ON public.contacts USING btree (campaign_id, phone_number);

CREATE INDEX contacts_by_last_attempt ON public.contacts USING btree (organization_id, last_attempted_at) WHERE (last_attempted_at IS NOT NULL);

CREATE INDEX contacts_by_organization ON public.contacts USING btree (organization_id, id DESC);

CREATE INDEX contacts_callable ON public.contacts USING btree (campaign_id, next_attempt_at) WHERE ((status = 'TRYING'::text) AND (dialing_lease_expires_at IS NULL));

CREATE INDEX contacts_data ON public.contacts USING gin (data jsonb_path_ops);

CREATE INDEX contacts_dialing_lease ON public.contacts USING btree (dialing_lease_expires_at) WHERE (dialing_lease_expires_at IS NOT NULL);

CREATE INDEX contacts_leases_by_campaign ON public.contacts USING btree (campaign_id, dialing_lease_expires_at) WHERE (dialing_lease_expires_at IS NOT NULL);

CREATE INDEX contacts_leases_by_organization ON public.contacts USING btree (organization_id, dialing_lease_expires_at) WHERE (dialing_lease_expires_at IS NOT NULL);

CREATE INDEX contacts_leases_by_worker ON public.contacts USING btree (dialing_worker) WHERE (dialing_worker IS NOT NULL);

CREATE INDEX contacts_trying_by_number ON public.contacts USING btree (organization_id, phone_number) WHERE (status = 'TRYING'::text);

CREATE INDEX conversations_by_campaign ON public.conversations USING btree (organization_id, campaign_id, started_at DESC, id DESC);

CREATE INDEX conversations_by_carrier_call ON public.conversations USING btree (carrier_call_id) WHERE (carrier_call_id IS NOT NULL);

CREATE INDEX conversations_by_from_number ON public.conversations USING btree (organization_id, from_number, started_at DESC, id DESC);

CREATE INDEX conversations_by_organization ON public.conversations USING btree (organization_id, started_at DESC, id DESC);

CREATE INDEX conversations_by_to_number ON public.conversations USING btree (organization_id, to_number, started_at DESC, id DESC);

CREATE INDEX conversations_open_direct ON public.conversations USING btree (started_at) WHERE ((direction = 'outbound'::text) AND (campaign_id IS NULL) AND (ended_at IS NULL));

CREATE INDEX conversations_open_inbound ON public.conversations USING btree (started_at) WHERE ((direction = 'inbound'::text) AND (ended_at IS NULL));

CREATE INDEX listen_tickets_by_call ON public.listen_tickets USING btree (call_id);

CREATE INDEX listen_tickets_by_expiry ON public.listen_tickets USING btree (expires_at);

CREATE UNIQUE INDEX messages_carrier_message_id ON public.messages USING btree (carrier_message_id) WHERE (carrier_message_id IS NOT NULL);

CREATE INDEX messages_inbound_by_number ON public.messages USING btree (organization_id, to_number, received_at, id) WHERE (direction = 'inbound'::text);

CREATE INDEX phone_numbers_by_agent ON public.phone_numbers USING btree (agent_id) WHERE (agent_id IS NOT NULL);

CREATE INDEX phone_numbers_by_organization ON public.phone_numbers USING btree (organization_id, phone_number);

CREATE INDEX turn_latencies_by_campaign ON public.turn_latencies USING btree (campaign_id) INCLUDE (conversation_id, user_stopped_ms, agent_started_ms) WHERE (campaign_id IS NOT NULL);

CREATE INDEX webhook_deliveries_by_endpoint ON public.webhook_deliveries USING btree (endpoint_id, id DESC);

CREATE INDEX webhook_deliveries_due ON public.webhook_deliveries USING btree (next_attempt_at) WHERE (status = 'pending'::text);

CREATE INDEX webhook_endpoints_by_organization ON public.webhook_endpoints USING btree (organization_id, created_at, id);

CREATE INDEX webhook_events_by_time ON public.webhook_events USING btree (created_at);

ALTER TABLE ONLY public.agents
    ADD CONSTRAINT agents_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);

ALTER TABLE ONLY public.campaigns
    ADD CONSTRAINT campaigns_agent_id_fkey FOREIGN KEY (agent_id) REFERENCES public.agents(id);

ALTER TABLE ONLY public.campaigns
    ADD CONSTRAINT campaigns_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);

ALTER TABLE ONLY public.contacts
    ADD CONSTRAINT contacts_campaign_id_fkey FOREIGN KEY (campaign_id) REFERENCES public.campaigns(id);

ALTER TABLE ONLY public.conversation_fields
    ADD CONSTRAINT conversation_fields_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES public.conversations(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_campaign_id_fkey FOREIGN KEY (campaign_id) REFERENCES public.campaigns(id);

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);

ALTER TABLE ONLY public.dnc_entries
    ADD CONSTRAINT dnc_entries_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);

ALTER TABLE ONLY public.listen_tickets
    ADD CONSTRAINT listen_tickets_call_id_fkey FOREIGN KEY (call_id) REFERENCES public.conversations(call_id) ON DELETE CASCADE;

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT messages_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);

ALTER TABLE ONLY public.phone_numbers
    ADD CONSTRAINT phone_numbers_agent_id_fkey FOREIGN KEY (agent_id) REFERENCES public.agents(id);

ALTER TABLE ONLY public.phone_numbers
    ADD CONSTRAINT phone_numbers_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);

ALTER TABLE ONLY public.recording_chunks
    ADD CONSTRAINT recording_chunks_call_id_channel_fkey FOREIGN KEY (call_id, channel) REFERENCES public.recordings(call_id, channel) ON DELETE CASCADE;

ALTER TABLE ONLY public.transcript_turns
    ADD CONSTRAINT transcript_turns_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES public.conversations(id);

ALTER TABLE ONLY public.turn_latencies
    ADD CONSTRAINT turn_latencies_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES public.conversations(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES public.webhook_deliveries(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES public.webhook_endpoints(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.webhook_events(id);

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);

ALTER TABLE ONLY public.webhook_events
    ADD CONSTRAINT webhook_events_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);
