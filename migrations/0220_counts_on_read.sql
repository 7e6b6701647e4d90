-- Insights and follow-ups are counted on read, once per generation of the
-- data (store's derived-value caches), no longer kept on write: the counts
-- of 0190-0194, their triggers and the tables that marked what to count
-- again go. Every write transaction then does only its own writes, the
-- audit entry and the search index (a batch import was three times slower
-- with the counts kept).
DROP TRIGGER IF EXISTS insight_pm_insert;
DROP TRIGGER IF EXISTS insight_pm_update;
DROP TRIGGER IF EXISTS insight_pm_delete;
DROP TRIGGER IF EXISTS insight_group_insert;
DROP TRIGGER IF EXISTS insight_group_update;
DROP TRIGGER IF EXISTS insight_group_delete;
DROP TRIGGER IF EXISTS insight_tag_insert;
DROP TRIGGER IF EXISTS insight_tag_update;
DROP TRIGGER IF EXISTS insight_tag_delete;
DROP TRIGGER IF EXISTS insight_tick_insert;
DROP TRIGGER IF EXISTS insight_tick_update;
DROP TRIGGER IF EXISTS insight_tick_delete;
DROP TRIGGER IF EXISTS insight_item_insert;
DROP TRIGGER IF EXISTS insight_item_update;
DROP TRIGGER IF EXISTS insight_item_delete;
DROP TRIGGER IF EXISTS insight_pattern_family;
DROP TRIGGER IF EXISTS insight_step_pattern;
DROP TRIGGER IF EXISTS followup_item_insert;
DROP TRIGGER IF EXISTS followup_item_update;
DROP TRIGGER IF EXISTS followup_item_delete;
DROP TRIGGER IF EXISTS followup_pm_update;
DROP TRIGGER IF EXISTS followup_pm_delete;
DROP TRIGGER IF EXISTS followup_pm_org;
DROP TRIGGER IF EXISTS followup_tag_insert;
DROP TRIGGER IF EXISTS followup_tag_update;
DROP TRIGGER IF EXISTS followup_tag_delete;
DROP TABLE IF EXISTS insight_counts;
DROP TABLE IF EXISTS insight_groups;
DROP TABLE IF EXISTS insight_dirty;
DROP TABLE IF EXISTS followup_counts;
DROP TABLE IF EXISTS followup_postmortems;
DROP TABLE IF EXISTS followup_dirty;
