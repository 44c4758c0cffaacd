-- Returns the data model of the queue, MODEL: the check every script makes first (see common.lua) has upgraded an
-- older one or refused a newer one. Run when an instance starts serving a queue, so that it refuses to start rather
-- than to run.
return MODEL
