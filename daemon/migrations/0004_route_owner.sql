-- Who submitted each broker job (the peer uid of its submission; NULL: root
-- or a member's hand-over of a job from before this column): a user sees
-- only their own jobs through the broker.
ALTER TABLE routes ADD COLUMN owner_uid INTEGER;
